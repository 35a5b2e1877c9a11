#!/bin/bash
# After the 2-hour run and its evals, on copies of the earlier 2-hour store, 2 threads each:
#   a: f80c4aa (held changes in a private map)      b: + held changes on huge pages
#   e: b + play keys by table lookups              f: e built for the native CPU
#   c: f with glibc's malloc on huge pages (round 1 only)
#   z: 9053d0d, the binary before held writes (continuous writeback)
# then the MPI apply cost, 2 ranks x 1 thread: f80c4aa against e (both --features mpi).
cd /work/runs/hp
while [ ! -f /work/runs/held2h/finished ]; do sleep 10; done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
for b in trainer-abstraction trainer-f80c4aa trainer-keys trainer-keys-native; do
  /work/bin/$b bench game --hands 300000 > game-$b.txt 2>&1
done
arm() { # name binary [env]
  local name=$1 bin=$2; shift 2
  env "$@" /usr/bin/time -v -o time-$name-$round.txt $bin resume --run-dir $name --for 150s --threads 2 --eval-every off > $name-$round.out 2> $name-$round.log
}
round=1
arm a /work/bin/trainer-f80c4aa
arm z /work/bin/trainer-abstraction
arm b /work/bin/trainer-hugepage
arm e /work/bin/trainer-keys
arm f /work/bin/trainer-keys-native
arm c /work/bin/trainer-keys-native GLIBC_TUNABLES=glibc.malloc.hugetlb=1
for m in base new; do
  B=/work/target-mpi-$m/release/trainer; [ $m = new ] && B=/work/target-mpi/release/trainer
  /usr/bin/time -v -o time-mpi-$m.txt mpirun --oversubscribe -np 2 $B resume --run-dir mpi-$m --for 150s --threads 1 --eval-every off > mpi-$m.out 2> mpi-$m.log
done
round=2
arm f /work/bin/trainer-keys-native
arm e /work/bin/trainer-keys
arm b /work/bin/trainer-hugepage
arm a /work/bin/trainer-f80c4aa
arm z /work/bin/trainer-abstraction
echo done > finished
