#!/bin/sh
# Pilot: bids trained against the heuristic's bids in all (share 1) or half
# (share 0.5) of the walks, 1 thread each side by side, binary f350767
# (the commit that adds the option); stopped at 6.66 M and 7.12 M
# iterations, read at their 6 M checkpoints (copies of the run directories,
# exported while training went on).
T=trainer
for s in 1 0.5; do
  $T train --phase bidding --run-dir share-$s --until 8000000 --opponent-bids heuristic:$s --threads 1
done
# at the 6 M checkpoint, in a copy of each run directory:
for s in 1 0.5; do
  $T export --run-dir copy-share-$s --out p6m-share-$s.bin
  A="bids:policy-argmax:p6m-share-$s.bin+policy-argmax:$EXPORT_2H"
  $T eval --a "$A" --b heuristic --hands 20000 --unseen uniform --seed 1
  $T eval --a "$A" --b policy-argmax:$EXPORT_2H --hands 20000 --unseen uniform --seed 1
  $T eval --a "$A" --b pimc:50 --hands 4000 --unseen uniform --seed 1
done
$T eval --a "bids:policy-argmax:p6m-share-1.bin+policy-argmax:$EXPORT_2H" --b pimc:50 --hands 4000 --unseen heuristic --seed 1
