#!/usr/bin/env bash
# The full-play mmap store's build (its 46 M-key universe enumerated for the
# perfect hash and the files), timed as the wall time of a 200-iteration
# `bench train` row, for two trainer binaries alternating.
# usage: full-play-build.sh OLD_TRAINER NEW_TRAINER ROUNDS SCRATCH_DIR
set -euo pipefail
[ $# -eq 4 ] || { echo "usage: $0 OLD_TRAINER NEW_TRAINER ROUNDS SCRATCH_DIR" >&2; exit 2; }
old=$1 new=$2 rounds=$3 scratch=$4
for round in $(seq 1 "$rounds"); do
  for which in old new; do
    bin=$old; [ "$which" = new ] && bin=$new
    rm -rf "$scratch"
    sync
    [ -w /proc/sys/vm/drop_caches ] && echo 3 > /proc/sys/vm/drop_caches
    start=$(date +%s.%N)
    "$bin" bench train --phases full-play --stores mmap --threads 2 --iterations 200 --dir "$scratch" > /dev/null 2>&1
    echo "$which $round $(echo "$(date +%s.%N) - $start" | bc) s"
  done
done
rm -rf "$scratch"
