#!/bin/bash
# Tighter A/B of h (today's) against t (children walked together, traverser's next decisions prefetched):
# 90 s sessions, alternating h t t h h t t h, each on its own store copy.
cd /work/runs/prefetch
i=0
for x in h t t h h t t h; do
  i=$((i+1))
  /work/bin/$(cat bin-$x) resume --run-dir $x --for 90s --threads 2 --eval-every off > ab-$i-$x.out 2> ab-$i-$x.log
done
echo done > ab-finished
