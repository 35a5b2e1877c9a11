#!/bin/bash
# b: f2a9a55 (children walked together, lookups batched); f: + forced card plays keyed without the play key
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
cd $WORK/forced
i=0
for x in ${ORDER:-b f f b}; do
  i=$((i+1))
  bin=$BIN_DIR/trainer-batch; [ $x = f ] && bin=$BIN_DIR/trainer-forced
  $bin resume --run-dir $x --for 90s --threads 2 --eval-every off > ab-$i-$x.out 2> ab-$i-$x.log
done
echo done > finished
