#!/bin/bash
# After the 2-hour run and its evals, on copies of the earlier 2-hour store, 2 threads each:
#   a: f80c4aa (held changes in a private map)      b: + held changes on huge pages
#   e: b + play keys by table lookups              f: e built for the native CPU
#   c: f with glibc's malloc on huge pages (round 1 only)
#   z: 9053d0d, the binary before held writes (continuous writeback)
# then the MPI apply cost, 2 ranks x 1 thread: f80c4aa against e (both --features mpi).
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
cd $WORK/hp
# (Run after the arms of held2h had finished: it waited for their 'finished' file.)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
for b in trainer-abstraction trainer-f80c4aa trainer-keys trainer-keys-native; do
  $BIN_DIR/$b bench game --hands 300000 > game-$b.txt 2>&1
done
arm() { # name binary [env]
  local name=$1 bin=$2; shift 2
  env "$@" /usr/bin/time -v -o time-$name-$round.txt $bin resume --run-dir $name --for 150s --threads 2 --eval-every off > $name-$round.out 2> $name-$round.log
}
round=1
arm a $BIN_DIR/trainer-f80c4aa
arm z $BIN_DIR/trainer-abstraction
arm b $BIN_DIR/trainer-hugepage
arm e $BIN_DIR/trainer-keys
arm f $BIN_DIR/trainer-keys-native
arm c $BIN_DIR/trainer-keys-native GLIBC_TUNABLES=glibc.malloc.hugetlb=1
for m in base new; do
  B=$WORK/target-mpi-$m/release/trainer; [ $m = new ] && B=$WORK/target-mpi/release/trainer
  /usr/bin/time -v -o time-mpi-$m.txt mpirun --oversubscribe -np 2 $B resume --run-dir mpi-$m --for 150s --threads 1 --eval-every off > mpi-$m.out 2> mpi-$m.log
done
round=2
arm f $BIN_DIR/trainer-keys-native
arm e $BIN_DIR/trainer-keys
arm b $BIN_DIR/trainer-hugepage
arm a $BIN_DIR/trainer-f80c4aa
arm z $BIN_DIR/trainer-abstraction
echo done > finished
