#!/bin/bash
# Issue 28's own bench at its lengths: full play on mmap, 2 threads, 6 min after a 2 min warm-up, fresh stores,
# bids fixed by this session's staged blueprint (8 M bidding iterations); the binary the issue was filed against
# (9053d0d), then today's with the children walked together and their lookups batched, one sitting.
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
cd $WORK/bench3x
BIDS=$WORK/bids/runs/full-play-mmap/bidding/policy.bin
for b in ${ORDER:-trainer-9053d0d trainer-batch}; do
  rm -rf dir-$b
  /usr/bin/time -v $BIN_DIR/$b bench train --for 6m --warm-up 2m --phases full-play --stores mmap --threads 2 \
    --bidding-from $BIDS --dir $WORK/bench3x/dir-$b > bench-$b.txt 2> time-$b.txt
  rm -rf dir-$b
done
echo done > finished
