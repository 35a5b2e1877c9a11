#!/bin/bash
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
B=/work/bin/trainer-mpi-sums
for sums in each-sync at-checkpoint; do
  dir=each; [ $sums = at-checkpoint ] && dir=deferred
  /usr/bin/time -v mpirun --oversubscribe -np 2 $B resume --run-dir /work/runs/mpi2/$dir --for 4m --threads 1 --eval-every off --sync-strategy-sums $sums > /work/runs/mpi2/$dir.log 2> /work/runs/mpi2/$dir.err
done
