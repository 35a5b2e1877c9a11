#!/usr/bin/env bash
# Cost of store verification on a full-play mmap store: checkpoint time of
# the binary before verification (old) against after (new), same sitting,
# and the new binary's verification at open, warm and cold.
set -x
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
cd "$(dirname "$0")/../../.." && cargo build --release -p trainer 2>&1 | tail -1
cp target/release/trainer $BIN_DIR/trainer-new
rm -rf $WORK/vc && mkdir -p $WORK/vc
$BIN_DIR/trainer-old train --config configs/quick.toml --run-dir $WORK/vc/bids --threads 2 > /dev/null 2>&1
cp $WORK/vc/bids/policy.bin $WORK/bids.bin
for bin in old new; do
  $BIN_DIR/trainer-$bin train --phase full-play --store mmap --bidding-from $WORK/bids.bin --threads 2 --for 90s --run-dir $WORK/vc/$bin --checkpoint-every 40000 2>&1 | grep -E "checkpoint at|store:|session" 
done
for i in 1 2; do
  $BIN_DIR/trainer-new resume --run-dir $WORK/vc/new --iterations 1 2>&1 | grep -E "checkpoint at|store:|verified"
done
sync; echo 3 > /proc/sys/vm/drop_caches
$BIN_DIR/trainer-new resume --run-dir $WORK/vc/new --iterations 1 2>&1 | grep -E "checkpoint at|store:|verified"
$BIN_DIR/trainer-new status --run-dir $WORK/vc/new
sync; echo 3 > /proc/sys/vm/drop_caches
$BIN_DIR/trainer-new status --run-dir $WORK/vc/new
$BIN_DIR/trainer-new status --run-dir $WORK/vc/new --skip-checksums
ls -la $WORK/vc/new/store
