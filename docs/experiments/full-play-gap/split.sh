#!/bin/bash
# The other half: PIMC-50's bids with the table's card play (and with PIMC-50's own, as a check
# that the split bot changes nothing), against the heuristic on the same deals (seed 1).
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
T=$BIN_DIR/trainer-split
R=$WORK/held2h/runs/full-play-mmap
$T eval --a bids:pimc:50+policy-argmax:$R/policy.bin --b heuristic --hands 20000 --unseen uniform > pimc50-bids-export-play.txt 2>&1
$T eval --a bids:pimc:50+pimc:50 --b heuristic --hands 20000 --unseen uniform > pimc50-bids-pimc50-play.txt 2>&1
echo done > split-finished
