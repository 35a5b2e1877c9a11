#!/usr/bin/env python3
"""Summarizes run.sh's work directories: for each two-rank arm, the ranks'
training rate, what the independent processes of the same round trained,
the drain per record sent and each rank's peak resident memory.

  summarize.py WORK_DIR...
"""
import csv
import re
import sys
from collections import defaultdict
from pathlib import Path


def cluster_arm(run_dir):
    ranks = defaultdict(lambda: defaultdict(float))
    with open(run_dir / "cluster-epochs.csv") as f:
        for row in csv.DictReader(f):
            if row["event"] != "sync":
                continue
            rank = ranks[int(row["rank"])]
            rank["iterations"] += float(row["iterations"])
            rank["train"] += float(row["train_seconds"])
            rank["drain"] += float(row["drain_seconds"])
            rank["sent"] += float(row["records_sent"])
            rank["apply"] += float(row["apply_seconds"])
            rank["syncs"] += 1
            rank["peak"] = max(rank["peak"], float(row["resident_bytes"]))
    rates = [r["iterations"] / r["train"] for r in ranks.values()]
    return {
        "rate": sum(rates) / len(rates),
        "rates": rates,
        "drain_us": 1e6 * sum(r["drain"] for r in ranks.values()) / sum(r["sent"] for r in ranks.values()),
        "apply_s": sum(r["apply"] / r["syncs"] for r in ranks.values()) / len(ranks),
        "peak_gib": [r["peak"] / 2**30 for r in ranks.values()],
    }


def high_water_gib(log):
    """The processes' peak resident memory, where run.sh measured it."""
    if not log.exists():
        return []
    return [int(k) / 2**20 for k in re.findall(r"peak resident (\d+) KiB", log.read_text())]


def solo_rate(log):
    if not log.exists():
        return None
    text = log.read_text()
    done = re.findall(r"checkpointed at iteration [\d,]+: ([\d,]+) this session in ([\d.]+) s", text)
    written = re.findall(r"checkpoint at iteration [\d,]+ written in ([\d.]+) s", text)
    if not done or not written:
        return None
    iterations, seconds = done[-1]
    return int(iterations.replace(",", "")) / (float(seconds) - float(written[-1]))


def main():
    print(f"{'work dir':<12} {'arm':<8} {'ranks it/s':>22} {'mean':>6} {'solo it/s':>12} {'ratio':>6} "
          f"{'drain µs/sent':>13} {'apply s':>8} {'resident at syncs GiB':>21} {'high water GiB':>14}")
    for work in map(Path, sys.argv[1:]):
        rounds = sorted({p.name.rsplit("-r", 1)[1] for p in work.iterdir() if re.search(r"-r\d+$", p.name)})
        for rnd in rounds:
            solos = [solo_rate(work / f"solo-{side}-r{rnd}.log") for side in "ab"]
            solos = [s for s in solos if s]
            solo = sum(solos) / len(solos) if solos else None
            solo_water = [w for side in "ab" for w in high_water_gib(work / f"solo-{side}-r{rnd}.log")]
            if solo_water:
                print(f"{work.name:<12} {'solo':<8} high water {' / '.join(f'{w:.2f}' for w in solo_water)} GiB")
            for arm in sorted(work.glob(f"*-r{rnd}")):
                if arm.name.startswith("solo") or not (arm / "cluster-epochs.csv").exists():
                    continue
                a = cluster_arm(arm)
                ratio = f"{a['rate'] / solo:.2f}" if solo else "-"
                solo_text = " / ".join(f"{s:,.0f}" for s in solos) if solos else "-"
                print(f"{work.name:<12} {arm.name:<8} {' / '.join(f'{r:,.0f}' for r in a['rates']):>22} "
                      f"{a['rate']:>6,.0f} {solo_text:>12} {ratio:>6} {a['drain_us']:>13.2f} {a['apply_s']:>8.3f} "
                      f"{' / '.join(f'{p:.2f}' for p in a['peak_gib']):>21} "
                      f"{' / '.join(f'{p:.2f}' for p in high_water_gib(arm.parent / (arm.name + '.log'))) or '-':>14}")


if __name__ == "__main__":
    main()
