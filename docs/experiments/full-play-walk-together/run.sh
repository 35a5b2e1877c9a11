#!/bin/bash
# Prefetch lever, steady state: copies of one store (card play under the staged bids), resumed 150 s on 2 threads each,
#   h: e20a0cf (today's: held changes, huge pages, table-driven keys)
#   l: h + the traverser's children walked together through the other seats' decisions, each round's lookups prefetched
#   t: l + the traverser's next decisions prefetched, their keys passed on
#   z: 9053d0d, the binary issue 28 was filed against
# one binary after another, then again in reverse order.
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
cd $WORK/prefetch
arm() { # name binary
  local name=$1 bin=$2
  /usr/bin/time -v -o time-$name-$round.txt $bin resume --run-dir $name --for 150s --threads 2 --eval-every off > $name-$round.out 2> $name-$round.log
}
round=1
for x in ${ORDER1:-h l t z}; do arm $x $BIN_DIR/$(cat bin-$x); done
round=2
for x in ${ORDER2:-z t l h}; do arm $x $BIN_DIR/$(cat bin-$x); done
echo done > finished
