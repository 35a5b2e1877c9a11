#!/bin/bash
for v in off 2 1; do
  /work/bin/trainer-sample export --run-dir /work/runs/samp/$v > /work/runs/samp/export-$v.txt 2>&1
  /work/bin/trainer-sample eval --a policy-argmax:/work/runs/samp/$v/policy.bin --b heuristic --hands 20000 --unseen uniform > /work/runs/samp/eval-$v.txt 2>&1
done
