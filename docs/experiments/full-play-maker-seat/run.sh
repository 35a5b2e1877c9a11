#!/bin/bash
# Plain play key against maker-seat, side by side, 1 thread each.
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
BIDS=$WORK/runs/full-play-mmap/bidding/policy.bin
T=$BIN_DIR/trainer-abstraction
cd $WORK/maker
for a in plain maker-seat; do
  /usr/bin/time -v $T train --phase full-play --store mmap \
    --bidding-from $BIDS --threads 1 --for 50m \
    --eval-every 25m --eval-against heuristic --eval-hands 4000 \
    --abstraction $a --run-dir $WORK/maker/$a > $a.log 2> $a.err &
done
wait
for a in plain maker-seat; do
  $T export --run-dir $WORK/maker/$a > export-$a.txt 2>&1 &
done
wait
for a in plain maker-seat; do
  $T eval --a policy-argmax:$WORK/maker/$a/policy.bin --b heuristic --hands 20000 --unseen uniform --threads 1 > eval-$a.txt 2>&1 &
done
wait
$T eval --a policy-argmax:$WORK/maker/maker-seat/policy.bin --b policy-argmax:$WORK/maker/plain/policy.bin --hands 20000 --unseen uniform > eval-maker-vs-plain.txt 2>&1
echo done > finished
