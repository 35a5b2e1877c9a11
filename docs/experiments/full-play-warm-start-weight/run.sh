#!/bin/bash
# Warm-start weight 1 (the default) against 4, side by side, 1 thread each.
while kill -0 31551 2>/dev/null; do sleep 5; done
BIDS=/work/runs/runs/full-play-mmap/bidding/policy.bin
for w in 1 4; do
  /usr/bin/time -v /work/bin/trainer-sample train --phase full-play --store mmap \
    --bidding-from $BIDS --threads 1 --for 40m \
    --eval-every 20m --eval-against heuristic --eval-hands 4000 \
    --run-dir /work/runs/warm/w$w --warm-start $w > /work/runs/warm/w$w.log 2> /work/runs/warm/w$w.err &
done
wait
for w in 1 4; do
  /work/bin/trainer-sample export --run-dir /work/runs/warm/w$w > /work/runs/warm/export-w$w.txt 2>&1
  /work/bin/trainer-sample eval --a policy-argmax:/work/runs/warm/w$w/policy.bin --b heuristic --hands 20000 --unseen uniform > /work/runs/warm/eval-w$w.txt 2>&1
done
