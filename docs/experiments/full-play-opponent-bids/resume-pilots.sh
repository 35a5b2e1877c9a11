#!/bin/sh
# Finish the pilots to 8 M iterations at low priority, beside the 2-hour run, then their matches.
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
T=$BIN_DIR/trainer-7b257f2
E=$WORK/now2h/runs/full-play-mmap/policy.bin
cd $WORK/model
for s in 1 0.5; do
  nice -n 19 $T resume --run-dir share-$s --until 8000000 --threads 1 > share-$s-resume.log 2>&1
  nice -n 19 $T export --run-dir share-$s --out s$s-8m.bin > s$s-8m-export.txt 2>&1
  A="bids:policy-argmax:s$s-8m.bin+policy-argmax:$E"
  nice -n 19 $T eval --a "$A" --b heuristic --hands 20000 --unseen uniform --seed 1 --threads 1 > s$s-8m-heuristic-20k.txt 2>&1
  nice -n 19 $T eval --a "$A" --b policy-argmax:$E --hands 20000 --unseen uniform --seed 1 --threads 1 > s$s-8m-h2h-20k.txt 2>&1
done
for s in 1 0.5; do
  A="bids:policy-argmax:s$s-8m.bin+policy-argmax:$E"
  for seed in 1 2; do
    nice -n 19 $T eval --a "$A" --b pimc:50 --hands 4000 --unseen uniform --seed $seed --threads 1 > s$s-8m-pimc50-seed$seed.txt 2>&1
  done
done
echo done > resume-pilots.done
