#!/bin/bash
# Pilot: bids refit to the 9-minute full-play table (table9m.bin), 8 M iterations like the staged blueprint, 1 thread.
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
cd $WORK/refit-smoke
T=$BIN_DIR/trainer-bc0979a
/usr/bin/time -v -o refit-time-v.txt $T train --phase bidding --leaves table-play --card-play-from table9m.bin --threads 1 --iterations 8000000 --run-dir refit --export > refit.out 2> refit.err
echo $? > refit.rc
