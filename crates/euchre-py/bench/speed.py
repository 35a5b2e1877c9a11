"""Speed through the Python API, in one run, as ratios against baselines
measured alongside:

1. random complete hands a second: this package's engine driven from
   Python (deal, legal actions, apply) against OpenSpiel's Python loop on
   its own euchre (chance, legal actions, apply);
2. the cost of one bot decision asked from Python: a duplicate match of
   the heuristic against itself run wholly in Rust, against the same match
   with one side a Python callable that asks the same heuristic through a
   view (the callable's decisions counted).

    python bench/speed.py [--hands N] [--rounds R]
"""

import argparse
import platform
import random
import statistics
import time

import euchre


def random_hands_ours(hands, seed):
    rng = random.Random(seed)
    for index in range(hands):
        hand = euchre.Hand.deal(index)
        while not hand.is_over:
            hand.apply(rng.choice(hand.legal_actions()))


def random_hands_openspiel(game, hands, seed):
    rng = random.Random(seed)
    for _ in range(hands):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            else:
                state.apply_action(rng.choice(state.legal_actions()))


def timed(work):
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def main():
    parser = argparse.ArgumentParser(description="speed through the Python API")
    parser.add_argument("--hands", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds; the median is shown")
    args = parser.parse_args()
    try:
        import pyspiel
    except ImportError:
        pyspiel = None
    print(f"euchre {euchre.__version__}, Python {platform.python_version()}, "
          f"{args.hands} hands a round, {args.rounds} rounds, one thread")

    # 1. Random complete hands a second.
    ours, theirs = [], []
    game = pyspiel.load_game("euchre") if pyspiel else None
    for round_ in range(args.rounds):
        ours.append(args.hands / timed(lambda: random_hands_ours(args.hands, round_)))
        if game:
            theirs.append(args.hands / timed(lambda: random_hands_openspiel(game, args.hands, round_)))
    print()
    print("| random complete hands from Python | hands a second (median) | ratio |")
    print("|---|---|---|")
    base = statistics.median(theirs) if theirs else None
    if base:
        print(f"| OpenSpiel {pyspiel.__version__ if hasattr(pyspiel, '__version__') else ''} `euchre`, its Python loop | {base:,.0f} | 1.00 |")
    mine = statistics.median(ours)
    print(f"| this package, `Hand` | {mine:,.0f} | {mine / base:.2f} |" if base else f"| this package, `Hand` | {mine:,.0f} | |")

    # 2. One bot decision asked from Python.
    heuristic = euchre.Bot("heuristic")
    calls = 0

    def through_python(view):
        nonlocal calls
        calls += 1
        return heuristic.act(view)

    hands = max(2, args.hands // 10 * 2 // 2)
    rust, python = [], []
    for _ in range(args.rounds):
        rust.append(timed(lambda: euchre.duplicate_match("heuristic", "heuristic", hands=hands, threads=1)))
        calls = 0
        python.append(timed(lambda: euchre.duplicate_match(through_python, "heuristic", hands=hands, threads=1)))
    per_call = (statistics.median(python) - statistics.median(rust)) / calls
    rust_decision = statistics.median(rust) / (calls * 2)
    print()
    print(f"| a heuristic decision ({calls} asked through Python in a {hands}-hand match) | microseconds |")
    print("|---|---|")
    print(f"| in Rust (the whole match in Rust, time over its decisions) | {rust_decision * 1e6:.2f} |")
    print(f"| asked from Python (view built, callable called, view read back, answer checked): extra a decision | {per_call * 1e6:.2f} |")

    # 3. Asking a bot about a Hand (read directly) or about its view (a
    # deal rebuilt to agree with it), for a cheap bot and for PIMC-50.
    rng = random.Random(1)
    positions = []
    for index in range(200):
        hand = euchre.Hand.deal(index)
        for _ in range(rng.randrange(0, 20)):
            if hand.is_over:
                break
            hand.apply(rng.choice(hand.legal_actions()))
        if not hand.is_over:
            positions.append((hand, hand.view()))
    print()
    print(f"| one decision asked from Python ({len(positions)} positions, median of {args.rounds} rounds) | about a `Hand` | about its view dict |")
    print("|---|---|---|")
    for spec in ("heuristic", "pimc:50"):
        bot = euchre.Bot(spec)
        by_hand, by_view = [], []
        for _ in range(args.rounds):
            by_hand.append(timed(lambda: [bot.act(hand, seed=1) for hand, _ in positions]))
            by_view.append(timed(lambda: [bot.act(view, seed=1) for _, view in positions]))
        each = [statistics.median(t) / len(positions) * 1e6 for t in (by_hand, by_view)]
        print(f"| `{spec}` | {each[0]:.1f} µs | {each[1]:.1f} µs |")


if __name__ == "__main__":
    main()
