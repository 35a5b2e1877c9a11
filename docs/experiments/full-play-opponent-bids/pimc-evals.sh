#!/bin/sh
# Low-priority PIMC-50 matches for the bidding arms, beside the 2-hour run.
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
T=$BIN_DIR/trainer-7b257f2
E=$WORK/now2h/runs/full-play-mmap/policy.bin
cd $WORK/model
for arm in s09-8m p6m-share-1 p6m-share-0.5; do
  for seed in 1 2; do
    nice -n 19 $T eval --a "bids:policy-argmax:$arm.bin+policy-argmax:$E" --b pimc:50 --hands 4000 --unseen uniform --seed $seed --threads 1 > $arm-pimc50-seed$seed.txt 2>&1
  done
done
nice -n 19 $T eval --a "bids:policy-argmax:p6m-share-1.bin+policy-argmax:$E" --b pimc:50 --hands 4000 --unseen heuristic --seed 1 --threads 1 > p6m-share-1-pimc50-seed1-unseen-heuristic.txt 2>&1
echo done > pimc-evals.done
