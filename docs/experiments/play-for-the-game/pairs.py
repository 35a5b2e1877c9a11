#!/usr/bin/env python3
"""Reads an arena file (arena.json) while the arena still runs, without
writing to it: each pair's duplicate games so far, A's share of the games
won with its 95% interval over the pairs of games, and A's points a hand
minus B's. The arena's own report (trainer arena, run again once it has
finished) is the record; this is the look-in.

usage: pairs.py ARENA_JSON
"""
import json
import math
import sys


def main():
    arena = json.load(open(sys.argv[1]))
    names = [bot["name"] for bot in arena["bots"]]
    for pair in arena["pairs"]:
        games = pair.get("games", [])
        if not games:
            continue
        shares = []
        net = hands = 0
        for game in games:
            won = 0.0
            for table in game["tables"]:
                won += {True: 1.0, False: 0.0, None: 0.5}[table["a_won"]]
                net += table["points"][0] - table["points"][1]
                hands += table["hands"]
            shares.append(won / 2)
        n = len(shares)
        mean = sum(shares) / n
        var = sum((s - mean) ** 2 for s in shares) / (n - 1) if n > 1 else 0.0
        print(
            f"{names[pair['a']]} vs {names[pair['b']]}: {2 * n} games, "
            f"A won {100 * mean:.1f}% ± {100 * 1.96 * math.sqrt(var / n):.1f}, "
            f"A − B {net / max(hands, 1):+.4f} a hand over {hands} hands"
        )


main()
