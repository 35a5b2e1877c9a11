#!/bin/bash
# Where the export's gap to pimc:50 against the heuristic lies: the same bids with
# PIMC's card play, the same deals (seed 1, 20,000 hands) as the export's measurement.
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
T=$BIN_DIR/trainer-2a6c250
R=$WORK/held2h/runs/full-play-mmap
$T eval --a policy-argmax:$R/bidding/policy.bin+pimc:50 --b heuristic --hands 20000 --unseen uniform > blueprint-bids-pimc50-play.txt 2>&1
$T eval --a policy-argmax:$R/bidding/policy.bin+heuristic --b heuristic --hands 20000 --unseen uniform > blueprint-bids-heuristic-play.txt 2>&1
$T eval --a policy-argmax:$R/policy.bin --b heuristic --hands 20000 --unseen uniform > export-vs-heuristic.txt 2>&1
echo done > finished
