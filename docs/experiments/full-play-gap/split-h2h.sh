#!/bin/bash
# Card play head to head under PIMC-50's bids: PIMC-50's bids with the table's card play against pimc:50.
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
T=$BIN_DIR/trainer-split
R=$WORK/held2h/runs/full-play-mmap
$T eval --a bids:pimc:50+policy-argmax:$R/policy.bin --b pimc:50 --hands 20000 --unseen uniform --seed 1 > pimc50-bids-export-play-vs-pimc50-seed1.txt 2>&1
echo done > split-h2h-finished
