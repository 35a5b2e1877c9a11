#!/usr/bin/env bash
# Times the mmap store's setup (the perfect hash, the records and keys files)
# and its steps with two trainer binaries, alternating, in one sitting.
# usage: setup-old-new.sh OLD_TRAINER NEW_TRAINER KEYS ROUNDS SCRATCH_DIR
# Before each run the page cache is written back and dropped (when this
# user may), so that no run pays for the one before it.
# Prints one line a run: which, round, then the child's RESULT fields
# (steps seconds, setup seconds, peak anon, peak file, disk bytes, hash bytes).
set -euo pipefail
[ $# -eq 5 ] || { echo "usage: $0 OLD_TRAINER NEW_TRAINER KEYS ROUNDS SCRATCH_DIR" >&2; exit 2; }
old=$1 new=$2 keys=$3 rounds=$4 scratch=$5
for round in $(seq 1 "$rounds"); do
  for which in old new; do
    bin=$old; [ "$which" = new ] && bin=$new
    rm -rf "$scratch"
    sync
    [ -w /proc/sys/vm/drop_caches ] && echo 3 > /proc/sys/vm/drop_caches
    line=$("$bin" bench store --keys "$keys" --only mmap --dir "$scratch" 2>/dev/null | grep '^RESULT')
    echo "$which $round $line"
  done
done
rm -rf "$scratch"
