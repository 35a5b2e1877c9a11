#!/usr/bin/env bash
# The noise floor of cluster-convergence's head to head: a second
# one-process bidding run, another seed, to the same 14 M iterations, then
# its export against the first one-process run's, as the cluster's was
# played (each bidding for its side, the heuristic playing the cards,
# 20,000 hands, seed 3). Resumes where a stopped session left it.
# Usage: noise-floor.sh WORK_DIR [SEED]   (WORK_DIR holds run.sh's `single`)
set -euo pipefail
work=$1 seed=${2:-6}
trainer=${TRAINER:-target/release/trainer}
arm="$work/single-s$seed"
stamp() { echo "== $1 $(date -u +%FT%TZ)"; }
stamp "one process, 2 threads, seed $seed, 14000000 iterations"
"$trainer" train --phase bidding --store memory --seed "$seed" --until 14000000 --eval-every off \
  --run-dir "$arm" --threads 2 --checkpoint-every 3500000
stamp "export seed $seed"
"$trainer" export --run-dir "$arm"
stamp "head to head: seed $seed against seed 5"
"$trainer" eval --a "policy:$arm/policy.bin+heuristic" --b "policy:$work/single/policy.bin+heuristic" --hands 20000 --seed 3
stamp done
