#!/usr/bin/env python3
"""Pools `trainer analyze --json` over the EGN repository's examples,
counting each distinct deal once (many example files repeat a game, with
and without annotations).

usage: aggregate.py EGN_DIR ANALYSIS.json [ANALYSIS.json ...]
"""
import collections
import glob
import json
import os
import sys

SEATS = "NESW"


def norm(card):
    card = card.strip()
    if len(card) == 2:
        rank = {"N": "9"}.get(card[0].upper(), card[0].upper())
        return rank + card[1].lower()
    return card


def raw_key(deal):
    tricks = []
    for phase in deal.get("phases", []):
        if phase.get("type") == "TRICK_PLAY":
            tricks = [norm(c) for t in phase["tricks"] for c in t]
    state = deal.get("initialState", {})
    return (SEATS[state.get("dealer", 0) % 4], norm(state.get("upCard", "")), tuple(tricks))


def report_key(deal):
    plays = [a[1].split()[1] for a in deal["actions"] if a[1].startswith("play ")]
    return (deal["dealer"], deal["upcard"], tuple(plays))


def main():
    egn_dir, analyses = sys.argv[1], sys.argv[2:]
    files = sorted(glob.glob(os.path.join(egn_dir, "*.egn")))
    distinct = {}
    for path in files:
        for deal in json.load(open(path))["deals"]:
            if isinstance(deal, dict):
                distinct.setdefault(raw_key(deal), os.path.basename(path))
    print(f"{len(files)} files, {len(distinct)} distinct deals")
    for analysis_path in analyses:
        games = json.load(open(analysis_path))
        bot = games[0]["bot"]
        seen = set()
        replayed = 0
        refused = collections.Counter()
        players = collections.defaultdict(lambda: [0, 0, 0, 0.0])
        labels = collections.defaultdict(lambda: [0, 0, 0, 0.0, 0])
        seconds = sum(g["seconds"] for g in games)
        decisions_all = 0
        labelled = set()
        for game in games:
            for deal in game["deals"]:
                key = report_key(deal)
                # Labels may sit on any copy of a deal: count each once.
                for d in deal["decisions"]:
                    for c in d["annotations"]:
                        if c.get("label") and (key, d["index"], c["label"], c["text"]) not in labelled:
                            labelled.add((key, d["index"], c["label"], c["text"]))
                            row = labels[c["label"]]
                            row[0] += 1
                            row[1] += d["made"] == d["preferred"]
                            row[2] += d.get("mark") is not None
                            if d.get("loss") is not None:
                                row[3] += d["loss"]
                                row[4] += 1
                if key in seen:
                    continue
                seen.add(key)
                replayed += 1
                for d in deal["decisions"]:
                    decisions_all += 1
                    p = players[d["player"]]
                    p[0] += 1
                    p[1] += d["made"] == d["preferred"]
                    if d.get("loss") is not None:
                        p[2] += 1
                        p[3] += d["loss"]
            for r in game["refused"]:
                refused[(game["file"].split("/")[-1], r["deal"], r["reason"])] += 1
        print(f"\n## {bot}: {replayed} distinct deals replayed and analysed, "
              f"{decisions_all} decisions with a choice, {seconds:.1f} s in all "
              f"(every file, repeats included)")
        print("\nrefused (file, deal, reason):")
        for (name, number, reason), _ in sorted(refused.items()):
            print(f"- {name} deal {number}: {reason}")
        print("\n| player | decisions | agrees with the bot | mean loss | total loss |")
        print("|---|---|---|---|---|")
        for name, (n, agree, valued, loss) in sorted(players.items(), key=lambda kv: -kv[1][0]):
            mean = f"{loss / valued:.3f}" if valued else "–"
            total = f"{loss:.2f}" if valued else "–"
            print(f"| {name} | {n} | {100 * agree / n:.0f}% | {mean} | {total} |")
        print("\n| annotators' label | decisions | bot agrees | bot marks it | mean loss |")
        print("|---|---|---|---|---|")
        for label, (n, agree, marked, loss, valued) in sorted(labels.items()):
            mean = f"{loss / valued:.3f}" if valued else "–"
            print(f"| {label} | {n} | {agree} | {marked} | {mean} |")


main()
