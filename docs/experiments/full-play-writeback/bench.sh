#!/bin/bash
# The bench: full play under fixed bids, mmap, 2 threads, 3 min after a 1 min warm-up (the issue asks 6 and 2; shortened to fit the session);
# the binary before held writes, then the one with them.
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
cd $WORK/bench
BIDS=$WORK/runs/full-play-mmap/bidding/policy.bin
for b in trainer-abstraction trainer-writeback; do
  $BIN_DIR/$b bench train --for 3m --warm-up 1m --phases full-play --stores mmap --threads 2 \
    --bidding-from $BIDS --dir $WORK/bench/dir-$b > bench-$b.txt 2>&1
done
echo done > finished
