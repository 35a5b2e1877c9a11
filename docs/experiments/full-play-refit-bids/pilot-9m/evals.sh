#!/bin/bash
# Pilot evals: the 9-minute table with the staged blueprint's bids (A) against the same table with bids refit to it (B).
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
cd $WORK/refit-smoke
while [ ! -f refit.rc ]; do sleep 10; done
T=$BIN_DIR/trainer-bc0979a
A=policy-argmax:table9m.bin
B=bids:policy-argmax:refit/policy.bin+policy-argmax:table9m.bin
$T eval --a $A --b heuristic --hands 20000 --unseen uniform --threads 1 > eval-blueprint-heuristic.txt 2>&1
$T eval --a $B --b heuristic --hands 20000 --unseen uniform --threads 1 > eval-refit-heuristic.txt 2>&1
$T eval --a $B --b $A --hands 20000 --unseen uniform --threads 1 > eval-refit-vs-blueprint.txt 2>&1
echo done > evals.done
