#!/bin/bash
# f: forced card plays keyed by seat alone; e: f + i16 records quantised four lanes at a time
cd /work/runs/forced
i=0
for x in ${ORDER:-f e e f}; do
  i=$((i+1))
  bin=/work/bin/trainer-forced; [ $x = e ] && bin=/work/bin/trainer-encode
  $bin resume --run-dir $x --for 90s --threads 2 --eval-every off > ab2-$i-$x.out 2> ab2-$i-$x.log
done
echo done > finished2
