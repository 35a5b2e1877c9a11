#!/bin/bash
# Distinct regret records one epoch touches, as the epoch grows: 2 ranks x 1 thread,
# one epoch of N iterations (N/2 a rank) from the 2-hour store.
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
T=$WORK/target-mpi/release/trainer
for N in ${SIZES:-947200 3788800}; do
  rm -rf run-$N; cp -r $WORK/runs/full-play-mmap run-$N
  rm -f run-$N/run.lock
  /usr/bin/time -v mpirun --oversubscribe -np 2 $T resume --run-dir run-$N --iterations $N --sync-iterations $N \
     --checkpoint-every 1000000000 --threads 1 --eval-every off > epoch-$N.out 2> epoch-$N.log
  echo "rc $?" >> epoch-$N.out
  rm -rf run-$N
done
