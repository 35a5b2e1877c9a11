#!/bin/bash
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
for v in off 2 1; do
  $BIN_DIR/trainer-sample export --run-dir $WORK/samp/$v > $WORK/samp/export-$v.txt 2>&1
  $BIN_DIR/trainer-sample eval --a policy-argmax:$WORK/samp/$v/policy.bin --b heuristic --hands 20000 --unseen uniform > $WORK/samp/eval-$v.txt 2>&1
done
