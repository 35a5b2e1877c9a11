#!/bin/bash
# The 2-hour run's current strategy against its average, as users play them.
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
T=$BIN_DIR/trainer-abstraction
RUN=$WORK/runs/full-play-mmap
cd $WORK/current
nice -n 10 $T export --run-dir $RUN --strategy current --out $WORK/current/current.bin > export-current.txt 2>&1
nice -n 10 $T eval --a policy-argmax:$WORK/current/current.bin --b heuristic --hands 20000 --unseen uniform --threads 1 > eval-current-vs-heuristic.txt 2>&1
nice -n 10 $T eval --a policy-argmax:$WORK/current/current.bin --b policy-argmax:$RUN/policy.bin --hands 20000 --unseen uniform --threads 1 > eval-current-vs-average.txt 2>&1
echo done > finished
