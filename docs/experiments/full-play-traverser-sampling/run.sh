#!/bin/bash
# Traverser sampling on full play, three arms side by side (1 thread each,
# same machine, same moment), fixed bids from the 2-hour run's stage.
BIDS=/work/runs/runs/full-play-mmap/bidding/policy.bin
for v in off 2 1; do
  /usr/bin/time -v /work/bin/trainer-sample train --phase full-play --store mmap \
    --bidding-from $BIDS --threads 1 --for 60m \
    --eval-every 20m --eval-against heuristic --eval-hands 4000 \
    --run-dir /work/runs/samp/$v --sample-own-after $v > /work/runs/samp/$v.log 2> /work/runs/samp/$v.err &
done
wait
