#!/bin/bash
# Warm-start weight 1 (the default) against 4, side by side, 1 thread each.
# (Run after the previous job had ended: it waited for that process.)
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
BIDS=$WORK/runs/full-play-mmap/bidding/policy.bin
for w in 1 4; do
  /usr/bin/time -v $BIN_DIR/trainer-sample train --phase full-play --store mmap \
    --bidding-from $BIDS --threads 1 --for 40m \
    --eval-every 20m --eval-against heuristic --eval-hands 4000 \
    --run-dir $WORK/warm/w$w --warm-start $w > $WORK/warm/w$w.log 2> $WORK/warm/w$w.err &
done
wait
for w in 1 4; do
  $BIN_DIR/trainer-sample export --run-dir $WORK/warm/w$w > $WORK/warm/export-w$w.txt 2>&1
  $BIN_DIR/trainer-sample eval --a policy-argmax:$WORK/warm/w$w/policy.bin --b heuristic --hands 20000 --unseen uniform > $WORK/warm/eval-w$w.txt 2>&1
done
