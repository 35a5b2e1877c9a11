#!/bin/bash
# Bids refit to the 2-hour export's card play: 8 M iterations like the stage's blueprint, 2 threads, after the 2-hour run's own evals.
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
cd $WORK/refit2h
# (Run after the arms of now2h had finished: it waited for their 'finished' file.)
T=$BIN_DIR/trainer-bc0979a
TABLE=$WORK/now2h/runs/full-play-mmap/policy.bin
/usr/bin/time -v -o refit-time-v.txt $T train --phase bidding --leaves table-play --card-play-from $TABLE --threads 2 --iterations 8000000 --run-dir refit --export > refit.out 2> refit.err
echo $? > refit.rc
A=policy-argmax:$TABLE
B=bids:policy-argmax:refit/policy.bin+policy-argmax:$TABLE
$T eval --a $B --b heuristic --hands 20000 --unseen uniform > eval-refit-heuristic.txt 2>&1
$T eval --a $B --b $A --hands 20000 --unseen uniform > eval-refit-vs-blueprint.txt 2>&1
$T eval --a $B --b pimc:50 --hands 4000 --unseen uniform --seed 1 > eval-refit-pimc50-seed1.txt 2>&1
$T eval --a $B --b pimc:50 --hands 4000 --unseen uniform --seed 2 > eval-refit-pimc50-seed2.txt 2>&1
echo done > finished
