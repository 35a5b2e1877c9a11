#!/usr/bin/env python3
# Count the opening leader's distinct views (hand, upcard, trump) up to the
# colour-preserving suit symmetries, for round-1 and round-2 trump.
import itertools
suits = range(4)  # 0,1 black; 2,3 red
ranks = range(6)
cards = [(s, r) for s in suits for r in ranks]
perms = []
for p in itertools.permutations(range(4)):
    # colour-preserving: the pairs {0,1} and {2,3} map to pairs
    if {p[0], p[1]} in ({0, 1}, {2, 3}):
        perms.append(p)
assert len(perms) == 8
idx = {c: i for i, c in enumerate(cards)}
def enc(p, hand, up, trump):
    h = sum(1 << idx[(p[s], r)] for s, r in hand)
    return (h, idx[(p[up[0]], up[1])], p[trump])
r1 = set(); r2 = set()
n = 0
for hand in itertools.combinations(cards, 5):
    hs = set(hand)
    for up in cards:
        if up in hs: continue
        for trump in suits:
            key = min(enc(p, hand, up, trump) for p in perms)
            (r1 if trump == up[0] else r2).add(key)
print("round-1 views", len(r1), "round-2 views", len(r2))
print("with 8 auction outcomes each (maker seat x alone):", 8 * (len(r1) + len(r2)))
