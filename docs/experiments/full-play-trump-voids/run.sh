#!/bin/bash
# Plain play key against trump-voids, side by side, 1 thread each, the same fixed bids (the 2-hour run's staged blueprint), memory store (an mmap store of the 187 M-key universe takes about an hour to build here).
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
BIDS=$WORK/runs/full-play-mmap/bidding/policy.bin
T=$BIN_DIR/trainer-voids
cd $WORK/voids
for a in plain trump-voids; do
  /usr/bin/time -v $T train --phase full-play --store ${STORE:-memory} \
    --bidding-from $BIDS --threads 1 --for ${FOR:-70m} \
    --eval-every ${EVERY:-35m} --eval-against heuristic --eval-hands 4000 \
    --abstraction $a --run-dir $WORK/voids/$a > $a.log 2> $a.err &
done
wait
for a in plain trump-voids; do
  $T export --run-dir $WORK/voids/$a > export-$a.txt 2>&1 &
done
wait
for a in plain trump-voids; do
  $T eval --a policy-argmax:$WORK/voids/$a/policy.bin --b heuristic --hands 20000 --unseen uniform --threads 1 > eval-$a.txt 2>&1 &
done
wait
$T eval --a policy-argmax:$WORK/voids/trump-voids/policy.bin --b policy-argmax:$WORK/voids/plain/policy.bin --hands 20000 --unseen uniform > eval-voids-vs-plain.txt 2>&1
for a in plain trump-voids; do
  $T eval --a policy-argmax:$WORK/voids/$a/policy.bin --b pimc:50 --hands 4000 --unseen uniform --seed 1 > eval-$a-pimc50.txt 2>&1
done
echo done > finished
