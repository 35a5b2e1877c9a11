#!/bin/bash
# Issue 28's own bench at its lengths: full play on mmap, 2 threads, 6 min after a 2 min warm-up, fresh stores,
# bids fixed by the staged blueprint (8 M bidding iterations); the binary the issue was filed against (9053d0d)
# and today's (children walked together + forced card plays keyed by seat alone + i16 records quantised four lanes
# at a time), alternating in one sitting: old, new, old, new.
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
cd $WORK/bench3x-2
BIDS=$WORK/bids/runs/full-play-mmap/bidding/policy.bin
i=0
for b in ${ORDER:-trainer-9053d0d trainer-encode trainer-9053d0d trainer-encode}; do
  i=$((i+1))
  rm -rf dir-$b
  /usr/bin/time -v $BIN_DIR/$b bench train --for 6m --warm-up 2m --phases full-play --stores mmap --threads 2 \
    --bidding-from $BIDS --dir $WORK/bench3x-2/dir-$b > bench-$i-$b.txt 2> time-$i-$b.txt
  rm -rf dir-$b
done
echo done > finished
