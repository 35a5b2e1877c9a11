#!/bin/bash
# Plain play key against maker-seat, side by side, 1 thread each.
BIDS=/work/runs/runs/full-play-mmap/bidding/policy.bin
T=/work/bin/trainer-abstraction
cd /work/runs/maker
for a in plain maker-seat; do
  /usr/bin/time -v $T train --phase full-play --store mmap \
    --bidding-from $BIDS --threads 1 --for 50m \
    --eval-every 25m --eval-against heuristic --eval-hands 4000 \
    --abstraction $a --run-dir /work/runs/maker/$a > $a.log 2> $a.err &
done
wait
for a in plain maker-seat; do
  $T export --run-dir /work/runs/maker/$a > export-$a.txt 2>&1 &
done
wait
for a in plain maker-seat; do
  $T eval --a policy-argmax:/work/runs/maker/$a/policy.bin --b heuristic --hands 20000 --unseen uniform --threads 1 > eval-$a.txt 2>&1 &
done
wait
$T eval --a policy-argmax:/work/runs/maker/maker-seat/policy.bin --b policy-argmax:/work/runs/maker/plain/policy.bin --hands 20000 --unseen uniform > eval-maker-vs-plain.txt 2>&1
echo done > finished
