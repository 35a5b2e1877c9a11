#!/bin/bash
# h (today's), t (walked together + prefetch), b (walked together, lookups batched: one perfect-hash pass, then key checks)
# 90 s sessions, order h t b b t h h t b, each arm on its own store copy.
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
cd $WORK/prefetch
i=0
for x in h t b b t h h t b; do
  i=$((i+1))
  $BIN_DIR/$(cat bin-$x) resume --run-dir $x --for 90s --threads 2 --eval-every off > abc-$i-$x.out 2> abc-$i-$x.log
done
echo done > abc-finished
