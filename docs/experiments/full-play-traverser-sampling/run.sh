#!/bin/bash
# Traverser sampling on full play, three arms side by side (1 thread each,
# same machine, same moment), fixed bids from the 2-hour run's stage.
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
BIDS=$WORK/runs/full-play-mmap/bidding/policy.bin
for v in off 2 1; do
  /usr/bin/time -v $BIN_DIR/trainer-sample train --phase full-play --store mmap \
    --bidding-from $BIDS --threads 1 --for 60m \
    --eval-every 20m --eval-against heuristic --eval-hands 4000 \
    --run-dir $WORK/samp/$v --sample-own-after $v > $WORK/samp/$v.log 2> $WORK/samp/$v.err &
done
wait
