#!/bin/bash
# f: forced card plays keyed by seat alone; e: f + i16 records quantised four lanes at a time
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
cd $WORK/forced
i=0
for x in ${ORDER:-f e e f}; do
  i=$((i+1))
  bin=$BIN_DIR/trainer-forced; [ $x = e ] && bin=$BIN_DIR/trainer-encode
  $bin resume --run-dir $x --for 90s --threads 2 --eval-every off > ab2-$i-$x.out 2> ab2-$i-$x.log
done
echo done > finished2
