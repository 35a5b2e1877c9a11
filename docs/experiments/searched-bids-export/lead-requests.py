#!/usr/bin/env python3
"""Writes COUNT bot-API requests (JSON lines for `trainer act`), each an
opening lead: a random deal, North dealing, and an auction that ends with a
random seat making trump (round 1 or 2, never alone), so East leads.
Usage: lead-requests.py COUNT SEED"""
import json
import random
import sys

count, seed = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(seed)
deck = [rank + suit for suit in "cdhs" for rank in "9TJQKA"]
bidders = ["E", "S", "W", "N"]  # from the dealer's left; North deals
for _ in range(count):
    cards = deck[:]
    rng.shuffle(cards)
    hands = {seat: cards[5 * i:5 * i + 5] for i, seat in enumerate(bidders)}
    upcard = cards[20]
    maker = rng.randrange(4)
    if rng.random() < 0.5:
        # Round 1: seats before the maker pass, the maker orders up, the
        # dealer discards face down.
        actions = ["pass"] * maker + ["order", "discard"]
    else:
        suit = rng.choice([s for s in "cdhs" if s != upcard[1]])
        actions = ["pass"] * (4 + maker) + [f"call {suit}"]
    print(json.dumps({"dealer": "N", "seat": "E", "hand": hands["E"],
                      "upcard": upcard, "actions": actions, "seed": rng.randrange(1 << 32)}))
