#!/bin/bash
while kill -0 31800 2>/dev/null; do sleep 5; done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
for order in slot key; do
  B=/work/bin/trainer-mpi-slot; [ $order = key ] && B=/work/bin/trainer-mpi-sums
  /usr/bin/time -v mpirun --oversubscribe -np 2 $B resume --run-dir /work/runs/mpi3/$order --for 4m --threads 1 --eval-every off > /work/runs/mpi3/$order.log 2> /work/runs/mpi3/$order.err
done
