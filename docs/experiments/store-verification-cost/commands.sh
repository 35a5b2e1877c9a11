#!/usr/bin/env bash
# Cost of store verification on a full-play mmap store: checkpoint time of
# the binary before verification (old) against after (new), same sitting,
# and the new binary's verification at open, warm and cold.
set -x
cd /work/main && cargo build --release -p trainer 2>&1 | tail -1
cp target/release/trainer /tmp/trainer-new
rm -rf /work/vc && mkdir -p /work/vc
/tmp/trainer-old train --config /work/main/configs/quick.toml --run-dir /work/vc/bids --threads 2 > /dev/null 2>&1
cp /work/vc/bids/policy.bin /tmp/bids.bin
for bin in old new; do
  /tmp/trainer-$bin train --phase full-play --store mmap --bidding-from /tmp/bids.bin --threads 2 --for 90s --run-dir /work/vc/$bin --checkpoint-every 40000 2>&1 | grep -E "checkpoint at|store:|session" 
done
for i in 1 2; do
  /tmp/trainer-new resume --run-dir /work/vc/new --iterations 1 2>&1 | grep -E "checkpoint at|store:|verified"
done
sync; echo 3 > /proc/sys/vm/drop_caches
/tmp/trainer-new resume --run-dir /work/vc/new --iterations 1 2>&1 | grep -E "checkpoint at|store:|verified"
/tmp/trainer-new status --run-dir /work/vc/new
sync; echo 3 > /proc/sys/vm/drop_caches
/tmp/trainer-new status --run-dir /work/vc/new
/tmp/trainer-new status --run-dir /work/vc/new --skip-checksums
ls -la /work/vc/new/store
