#!/usr/bin/env bash
# The store bench's workload on a table larger than the memory the process
# may use: each subject alone under a hard cgroup cap (page cache included),
# the page cache written back and dropped first, with a time limit.
# usage: larger-than-memory.sh TRAINER MEMCAP KEYS CAP SECONDS SCRATCH_DIR SUBJECT...
# TRAINER is built with --features bench-peers for the peers' rows; MEMCAP is
# the memcap tool. Prints each subject's RESULT line (steps seconds, setup
# seconds, peak anon, peak file, disk bytes, index bytes), the cap's peak,
# or that it ran out of time.
set -uo pipefail
[ $# -ge 7 ] || { echo "usage: $0 TRAINER MEMCAP KEYS CAP SECONDS SCRATCH_DIR SUBJECT..." >&2; exit 2; }
trainer=$1 memcap=$2 keys=$3 cap=$4 seconds=$5 scratch=$6; shift 6
for subject in "$@"; do
  rm -rf "$scratch"
  sync
  [ -w /proc/sys/vm/drop_caches ] && echo 3 > /proc/sys/vm/drop_caches
  start=$(date +%s.%N)
  out=$("$memcap" "$cap" timeout "$seconds" "$trainer" bench store --only "$subject" \
        --keys "$keys" --dir "$scratch" 2>&1)
  rc=$?
  wall=$(echo "$(date +%s.%N) - $start" | bc)
  result=$(echo "$out" | grep '^RESULT' || true)
  peak=$(echo "$out" | grep '^memcap:' || true)
  if [ $rc -eq 124 ] || echo "$peak" | grep -q 'exit 124'; then
    echo "$subject: did not finish within ${seconds} s; $peak"
  else
    echo "$subject: ${result:-no result (exit $rc): $(echo "$out" | tail -3)}; wall ${wall} s; $peak"
  fi
done
rm -rf "$scratch"
