#!/bin/bash
# The user's command, 2 hours, 2 threads, binary at f80c4aa (mmap changes held until checkpoints by default).
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
cd $WORK/held2h
/usr/bin/time -v -o time-v.txt $BIN_DIR/trainer-f80c4aa --phase full-play --store mmap --for 2h > train.out 2> train.log
echo $? > train.rc
$BIN_DIR/trainer-f80c4aa export --run-dir runs/full-play-mmap > export.txt 2>&1
$BIN_DIR/trainer-f80c4aa status --run-dir runs/full-play-mmap > status.txt 2>&1
$BIN_DIR/trainer-f80c4aa eval --a policy-argmax:runs/full-play-mmap/policy.bin --b heuristic --hands 20000 --unseen uniform > eval-heuristic-20k.txt 2>&1
$BIN_DIR/trainer-f80c4aa eval --a policy-argmax:runs/full-play-mmap/policy.bin --b pimc:50 --hands 4000 --unseen uniform --seed 1 > eval-pimc50-seed1.txt 2>&1
$BIN_DIR/trainer-f80c4aa eval --a policy-argmax:runs/full-play-mmap/policy.bin --b pimc:50 --hands 4000 --unseen uniform --seed 2 > eval-pimc50-seed2.txt 2>&1
echo done > finished
