#!/bin/bash
# (Run after the previous job had ended: it waited for that process.)
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
for order in slot key; do
  B=$BIN_DIR/trainer-mpi-slot; [ $order = key ] && B=$BIN_DIR/trainer-mpi-sums
  /usr/bin/time -v mpirun --oversubscribe -np 2 $B resume --run-dir $WORK/mpi3/$order --for 4m --threads 1 --eval-every off > $WORK/mpi3/$order.log 2> $WORK/mpi3/$order.err
done
