#!/usr/bin/env bash
# Full play's training rate for several trainer binaries in one sitting,
# alternating: each round runs every arm once, in the order given, with the
# store built fresh and the page cache dropped before each run (needs root
# for the drop; without it the runs go on with a warm cache, and say so).
#
# usage: bench-train-arms.sh ROUNDS SCRATCH NAME=TRAINER [NAME=TRAINER ...]
#   ROUNDS   how many times each arm runs
#   SCRATCH  a directory the stores are built in (removed between runs)
#   NAME=TRAINER  an arm's label and its trainer binary, optionally
#                 followed by extra `bench train` flags in the same word
#                 ("k4=/path/trainer --walks-per-thread 4")
# Prints, for each run, "== NAME ROUND" and bench train's table.
set -euo pipefail
if [ "$#" -lt 3 ]; then
    echo "usage: $0 ROUNDS SCRATCH NAME=TRAINER [NAME=TRAINER ...]" >&2
    exit 2
fi
rounds=$1 scratch=$2
shift 2
for round in $(seq 1 "$rounds"); do
    for arm in "$@"; do
        name=${arm%%=*} trainer=${arm#*=}
        rm -rf "$scratch"
        sync
        if ! { echo 3 > /proc/sys/vm/drop_caches; } 2>/dev/null; then
            echo "(page cache not dropped: not root)"
        fi
        echo "== $name $round"
        read -r -a command <<< "$trainer"
        "${command[0]}" bench train "${command[@]:1}" --phases full-play --stores mmap --threads 2 --for 60s --dir "$scratch" 2>/dev/null
    done
done
rm -rf "$scratch"
