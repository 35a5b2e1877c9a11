#!/bin/bash
# Card play head to head under PIMC-50's bids: PIMC-50's bids with the table's card play against pimc:50.
T=/work/bin/trainer-split
R=/work/runs/held2h/runs/full-play-mmap
$T eval --a bids:pimc:50+policy-argmax:$R/policy.bin --b pimc:50 --hands 20000 --unseen uniform --seed 1 > pimc50-bids-export-play-vs-pimc50-seed1.txt 2>&1
echo done > split-h2h-finished
