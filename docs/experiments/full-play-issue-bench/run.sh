#!/bin/bash
# The issue's own bench, at the lengths: full play on mmap, 2 threads, 6 min after a 2 min warm-up,
# bids fixed by the 2-hour run's staged blueprint; the binary the issue was filed against (9053d0d) and today's (06d0d69), alternating.
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
cd $WORK/bench3x
BIDS=$WORK/runs/full-play-mmap/bidding/policy.bin
for b in ${ORDER:-trainer-abstraction trainer-06d0d69}; do
  rm -rf dir-$b
  /usr/bin/time -v $BIN_DIR/$b bench train --for 6m --warm-up 2m --phases full-play --stores mmap --threads 2 \
    --bidding-from $BIDS --dir $WORK/bench3x/dir-$b > bench-$ROUND-$b.txt 2> time-$ROUND-$b.txt
  rm -rf dir-$b
done
echo done > finished-$ROUND
