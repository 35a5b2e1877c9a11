#!/bin/bash
# PIMC-50's own margin over the heuristic, on the deals the 2-hour export was measured on (seed 1, 20,000 hands).
trainer eval --a pimc:50 --b heuristic --hands 20000 > pimc50-vs-heuristic-20k.txt 2>&1
