#!/bin/bash
# The user's command, 2 hours, 2 threads, binary at 51d80b0 (forced plays keyed by seat, four-lane records).
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
cd $WORK/now2h
T=$BIN_DIR/trainer-51d80b0
/usr/bin/time -v -o time-v.txt $T --phase full-play --store mmap --for 2h > train.out 2> train.log
echo $? > train.rc
$T export --run-dir runs/full-play-mmap > export.txt 2>&1
$T status --run-dir runs/full-play-mmap > status.txt 2>&1
$T eval --a policy-argmax:runs/full-play-mmap/policy.bin --b heuristic --hands 20000 --unseen uniform > eval-heuristic-20k.txt 2>&1
date -u > eval-heuristic.done
$T eval --a policy-argmax:runs/full-play-mmap/policy.bin --b pimc:50 --hands 4000 --unseen uniform --seed 1 > eval-pimc50-seed1.txt 2>&1
date -u > eval-pimc1.done
$T eval --a policy-argmax:runs/full-play-mmap/policy.bin --b pimc:50 --hands 4000 --unseen uniform --seed 2 > eval-pimc50-seed2.txt 2>&1
echo done > finished
