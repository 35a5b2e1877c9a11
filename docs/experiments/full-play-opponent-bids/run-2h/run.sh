#!/bin/bash
# The user's command with --opponent-bids, 2 hours, 2 threads, binary 7b257f2.
# Usage: run.sh SHARE
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
cd $WORK/model2h
T=$BIN_DIR/trainer-7b257f2
date -u > started
/usr/bin/time -v -o time-v.txt $T --phase full-play --store mmap --for 2h --opponent-bids heuristic:$1 > train.out 2> train.log
echo $? > train.rc
$T export --run-dir runs/full-play-mmap > export.txt 2>&1
$T status --run-dir runs/full-play-mmap > status.txt 2>&1
$T eval --a policy-argmax:runs/full-play-mmap/policy.bin --b heuristic --hands 20000 --unseen uniform > eval-heuristic-20k.txt 2>&1
date -u > eval-heuristic.done
$T eval --a policy-argmax:runs/full-play-mmap/policy.bin --b pimc:50 --hands 4000 --unseen uniform --seed 1 > eval-pimc50-seed1.txt 2>&1
date -u > eval-pimc1.done
$T eval --a policy-argmax:runs/full-play-mmap/policy.bin --b pimc:50 --hands 4000 --unseen uniform --seed 2 > eval-pimc50-seed2.txt 2>&1
date -u > eval-pimc2.done
$T eval --a policy-argmax:runs/full-play-mmap/policy.bin --b policy-argmax:$WORK/now2h/runs/full-play-mmap/policy.bin --hands 20000 --unseen uniform > eval-h2h-20k.txt 2>&1
echo done > finished
