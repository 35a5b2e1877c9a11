#!/usr/bin/env bash
# The projection's range for full play on 8 machines x 16 cores at 10 Gb/s:
# pessimistic, middle and optimistic, each case's inputs named in its
# header line. The settle is empty (card play keeps no average), so its
# speed-up changes nothing.
# Usage: range.sh MODEL_PY FIT_RUN DRAIN_2 APPLY_2 [APPLY_SCALE]
#   MODEL_PY: docs/experiments/cluster-model/model.py
#   FIT_RUN: the fitted run's directory (its cluster-epochs.csv)
#   DRAIN_2, APPLY_2: the drain's and the apply's speed-ups at 2 threads
#   against 1 (`trainer bench replica`); the pessimistic case takes them as
#   they are, the others carry them to 16 cores by Amdahl's law.
#   APPLY_SCALE: today's one-thread apply time over the fitted run's code's,
#   both from `bench replica` in one sitting (default 1: the fit as it is).
set -euo pipefail
model=$1 fit=$2 drain2=$3 apply2=$4 apply_scale=${5:-1}
distinct=10800:82318,21600:151353,473600:1756488,947200:2808672
amdahl() { python3 -c "s = $1; p = 2 * (1 - 1 / s); print(f'{1 / ((1 - p) + p / 16):.2f}')"; }
drain16=$(amdahl "$drain2") apply16=$(amdahl "$apply2")
common=(project --fit "$fit" --settle-records 0 --distinct "$distinct" --periods 10 30 60
  --apply-scale "$apply_scale")

# A thread's rate and a rank's ratio to one process, in place, over three
# sittings: one-thread processes 3,243-3,755 it/s (median 3,500), rank
# ratios 0.91-0.97 (median 0.93). A faster thread changes more records an
# epoch, which weighs the syncs more: the pessimistic case takes the fastest.
echo "# pessimistic: thread 3,755 it/s (the fastest measured), rank ratio 0.91 (the lowest), drain ${drain2}x / apply ${apply2}x on a machine's cores (the 2-thread speed-ups, none beyond), a 23 s checkpoint, each epoch waiting for the slowest of 8 machines"
python3 "$model" "${common[@]}" --thread-rate 3755 --rank-ratio 0.91 --drain-speedup "$drain2" \
  --apply-speedup "$apply2" --settle-speedup 1.58 --checkpoint-seconds 23 --straggle
echo
echo "# middle: thread 3,500 it/s, rank ratio 0.93 (the medians), drain ${drain16}x / apply ${apply16}x (Amdahl from the 2-thread speed-ups), a 10 s checkpoint, the slowest of 8 machines waited for"
python3 "$model" "${common[@]}" --thread-rate 3500 --rank-ratio 0.93 --drain-speedup "$drain16" \
  --apply-speedup "$apply16" --settle-speedup 3.2 --checkpoint-seconds 10 --straggle
echo
echo "# optimistic: thread 3,243 it/s (the slowest), rank ratio 0.97 (the highest), drain ${drain16}x / apply ${apply16}x, a 4 s checkpoint, machines that arrive together"
python3 "$model" "${common[@]}" --thread-rate 3243 --rank-ratio 0.97 --drain-speedup "$drain16" \
  --apply-speedup "$apply16" --settle-speedup 3.2 --checkpoint-seconds 4
