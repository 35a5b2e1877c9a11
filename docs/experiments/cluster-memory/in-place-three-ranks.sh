#!/usr/bin/env bash
# The 3-rank arm of "In place" (cluster-memory.md), run apart with --rank-memory 11G: each rank
# is in its own 11G memcap cgroup, which the plan otherwise takes as shared by the 3 ranks.
set -euo pipefail
cd "$(dirname "$0")/../../.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
dir=runs/mem5/three-ranks
rm -rf $dir; mkdir -p $dir
cp -a runs/base-current/{store,bidding,settings.toml,curve.csv} $dir/
sync; echo 1 > /proc/sys/vm/drop_caches
echo "== three-ranks, --rank-memory 11G (each rank in its own 11G cgroup): 3 rank(s) x 1 thread(s), $(date -u +%FT%TZ)"
mpirun --oversubscribe --tag-output -np 3 ../shared/tools/memcap 11G runs/bin/trainer-sums resume --run-dir $dir --for 3m --threads 1 --eval-every off --rank-memory 11G
cat $dir/cluster.txt || true
