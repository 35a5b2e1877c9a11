#!/bin/bash
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
B=$BIN_DIR/trainer-mpi-sums
for sums in each-sync at-checkpoint; do
  dir=each; [ $sums = at-checkpoint ] && dir=deferred
  /usr/bin/time -v mpirun --oversubscribe -np 2 $B resume --run-dir $WORK/mpi2/$dir --for 4m --threads 1 --eval-every off --sync-strategy-sums $sums > $WORK/mpi2/$dir.log 2> $WORK/mpi2/$dir.err
done
