#!/bin/bash
# Tighter A/B of h (today's) against t (children walked together, traverser's next decisions prefetched):
# 90 s sessions, alternating h t t h h t t h, each on its own store copy.
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
cd $WORK/prefetch
i=0
for x in h t t h h t t h; do
  i=$((i+1))
  $BIN_DIR/$(cat bin-$x) resume --run-dir $x --for 90s --threads 2 --eval-every off > ab-$i-$x.out 2> ab-$i-$x.log
done
echo done > ab-finished
