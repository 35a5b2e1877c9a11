"""OpenSpiel's IS-MCTS against one of this project's bots, in OpenSpiel's
loop, on duplicate deals (each deal played twice, seats swapped).

    python examples/openspiel_ismcts.py --bot pimc:50 --deals 200
    python examples/openspiel_ismcts.py --bot strongest:RUN --deals 200

RUN must hold a policy trained under OpenSpiel's rules (the dealer may not
discard the upcard: ``[rules] dealer_may_discard_upcard = false``); a policy
trained under other rules is refused by name.
"""

import argparse
import time

import pyspiel

from euchre import openspiel as bridge


def ismcts(game, player, simulations, seed):
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed + player)
    return pyspiel.ISMCTSBot(
        seed + player,
        evaluator,
        2.0,  # uct_c, the value OpenSpiel's own IS-MCTS examples use
        simulations,
        -1,  # max_world_samples: unbounded
        pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
        False,
        False,
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", default="pimc:50", help="a spec (see euchre.bot_specs())")
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--simulations", type=int, default=1000, help="IS-MCTS simulations a move")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--stick-the-dealer", choices=["true", "false"], default="true")
    args = parser.parse_args()

    game = pyspiel.load_game("euchre", {"stick_the_dealer": args.stick_the_dealer == "true"})
    ours = bridge.Bot(game, args.bot, seed=args.seed)  # one bot serves every seat
    started = time.time()
    result = bridge.duplicate_match(
        game,
        lambda player: ours,
        lambda player: ismcts(game, player, args.simulations, args.seed),
        deals=args.deals,
        seed=args.seed,
    )
    print(f"rules: {bridge.rules_of(game)} (OpenSpiel: {game.get_parameters()})")
    print(f"A = {ours.bot.name} ({args.bot}), B = OpenSpiel IS-MCTS, {args.simulations} simulations, random rollouts")
    print(
        f"{result['hands']} hands ({args.deals} deals, each played twice with the seats swapped), "
        f"seed {args.seed}, {time.time() - started:.1f} s"
    )
    print(f"A's points a hand minus B's: {result['net_per_hand']:+.4f} ± {result['net_interval']:.4f} (95% interval over deals)")


if __name__ == "__main__":
    main()
