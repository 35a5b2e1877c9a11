#!/bin/bash
# Card play head to head under the same bids: the export against the blueprint's bids with pimc:50's card play.
T=/work/bin/trainer-2a6c250
R=/work/runs/held2h/runs/full-play-mmap
for s in 1 2; do
$T eval --a policy-argmax:$R/policy.bin --b policy-argmax:$R/bidding/policy.bin+pimc:50 --hands 20000 --unseen uniform --seed $s > export-vs-blueprint-bids-pimc50-play-seed$s.txt 2>&1
done
echo done > h2h-finished
