#!/usr/bin/env python3
"""The largest difference between two `trainer win-model` tables.

Usage: compare.py A.txt B.txt   (each the output of `trainer win-model`)
Prints the largest absolute difference in percentage points over every
score and dealer, and where it is.
"""
import sys


def tables(path):
    """{(we_deal, us, them): percent} from a win-model report."""
    chances, we_deal = {}, None
    for line in open(path, encoding="utf-8"):
        if line.startswith("chance (%)"):
            we_deal = "your side deals next" in line
            continue
        parts = line.split()
        if we_deal is None or len(parts) < 2 or not parts[0].isdigit():
            continue
        if "." not in parts[1]:
            continue  # the header row of column numbers
        us = int(parts[0])
        for them, value in enumerate(parts[1:]):
            chances[(we_deal, us, them)] = float(value)
    return chances


def main():
    a, b = tables(sys.argv[1]), tables(sys.argv[2])
    worst = max(a, key=lambda k: abs(a[k] - b[k]))
    mean = sum(abs(a[k] - b[k]) for k in a) / len(a)
    deal = "dealing next" if worst[0] else "not dealing next"
    print(f"{len(a)} scores; mean difference {mean:.2f} points of percent; "
          f"largest {abs(a[worst] - b[worst]):.1f} at {worst[1]}-{worst[2]} {deal} "
          f"({a[worst]:.1f}% against {b[worst]:.1f}%)")


if __name__ == "__main__":
    main()
