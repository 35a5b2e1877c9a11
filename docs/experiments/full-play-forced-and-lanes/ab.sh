#!/bin/bash
# b: f2a9a55 (children walked together, lookups batched); f: + forced card plays keyed without the play key
cd /work/runs/forced
i=0
for x in ${ORDER:-b f f b}; do
  i=$((i+1))
  bin=/work/bin/trainer-batch; [ $x = f ] && bin=/work/bin/trainer-forced
  $bin resume --run-dir $x --for 90s --threads 2 --eval-every off > ab-$i-$x.out 2> ab-$i-$x.log
done
echo done > finished
