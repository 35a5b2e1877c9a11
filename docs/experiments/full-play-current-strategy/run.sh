#!/bin/bash
# The 2-hour run's current strategy against its average, as users play them.
T=/work/bin/trainer-abstraction
RUN=/work/runs/runs/full-play-mmap
cd /work/runs/current
nice -n 10 $T export --run-dir $RUN --strategy current --out /work/runs/current/current.bin > export-current.txt 2>&1
nice -n 10 $T eval --a policy-argmax:/work/runs/current/current.bin --b heuristic --hands 20000 --unseen uniform --threads 1 > eval-current-vs-heuristic.txt 2>&1
nice -n 10 $T eval --a policy-argmax:/work/runs/current/current.bin --b policy-argmax:$RUN/policy.bin --hands 20000 --unseen uniform --threads 1 > eval-current-vs-average.txt 2>&1
echo done > finished
