#!/usr/bin/env bash
# One sync's exchange with blocking collectives (OLD) against polled ones
# that answer the liveness pings (NEW), alternated, on loopback (2 ranks)
# and over TCP between 3 network namespaces shaped to 10 Gb/s.
# Usage: sync-old-new.sh OLD_TRAINER NEW_TRAINER OUT_DIR [ROUNDS]
#   (both built with --features mpi; run from the repository's root, which
#   holds scripts/netns-mpirun)
set -euo pipefail
old=$1 new=$2 out=$3 rounds=${4:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
bench=(bench sync --records 1600000,16000000 --touched 1 --tries 3)
mkdir -p "$out"
for round in $(seq "$rounds"); do
  for arm in old new; do
    trainer=$old
    [ "$arm" = new ] && trainer=$new
    mpirun --oversubscribe -np 2 "$trainer" "${bench[@]}" > "$out/loopback-$arm-$round.txt" 2>&1
    scripts/netns-mpirun --ranks 3 --rate 10gbit -- "$trainer" "${bench[@]}" > "$out/netns3-$arm-$round.txt" 2>&1
  done
done
