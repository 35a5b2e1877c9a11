#!/bin/bash
# Card play head to head under the same bids: the export against the blueprint's bids with pimc:50's card play.
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
T=$BIN_DIR/trainer-2a6c250
R=$WORK/held2h/runs/full-play-mmap
for s in 1 2; do
$T eval --a policy-argmax:$R/policy.bin --b policy-argmax:$R/bidding/policy.bin+pimc:50 --hands 20000 --unseen uniform --seed $s > export-vs-blueprint-bids-pimc50-play-seed$s.txt 2>&1
done
echo done > h2h-finished
