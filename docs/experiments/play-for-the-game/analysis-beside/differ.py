#!/usr/bin/env python3
"""The decisions an analysis judged in both units (`beside`) where the
two disagree: marked in one unit only, or the best move differs.

Usage: differ.py ANALYSIS.json   (the output of `trainer analyze --json`)
"""
import json
import sys

games = json.load(open(sys.argv[1]))
both = 0
rows = []
for game in games:
    for deal in game["deals"]:
        for decision in deal["decisions"]:
            beside = decision.get("beside")
            if not beside:
                continue
            both += 1
            marked = (decision.get("mark") is None) != (beside.get("mark") is None)
            if marked or beside["preferred"] != decision["preferred"]:
                rows.append((game["title"], deal["number"] + 1, deal["score"], decision, beside))
print(f"{both} decisions judged in both units; {len(rows)} where they disagree")
print(f"unit {games[0]['unit']}, beside it {games[0].get('beside_unit')}")
for title, hand, score, decision, beside in sorted(rows, key=lambda r: -r[4]["loss"]):
    print(
        f"{title}, hand {hand} at {score[0]}-{score[1]} (NS-EW): {decision['player']} {decision['made']}; "
        f"best {decision['preferred']} (loss {decision['loss']:.3f}, {decision.get('mark') or 'unmarked'}) · "
        f"best {beside['preferred']} (loss {beside['loss']:.4f}, {beside.get('mark') or 'unmarked'})"
    )
