"""Euchre for researchers: the rules engine, this project's bots by spec,
duplicate matches and games between them and your own Python bot, and
Euchre Game Notation with its analysis.

A five-minute tour is in docs/python.md of the repository. In short::

    import euchre

    hand = euchre.Hand.deal(seed=7)
    while not hand.is_over:
        hand.apply(euchre.Bot("heuristic").act(hand.view()))

    def my_bot(view):            # a view is a dict: the bot API's request
        return view["legal"][0]  # answer one of the legal actions

    result = euchre.duplicate_match(my_bot, "heuristic", hands=200)
    print(result["net_per_hand"], "+-", result["net_interval"])
"""

from euchre._native import (
    ACTIONS,
    FEATURE_NAMES,
    Bot,
    BotError,
    EgnError,
    EuchreError,
    Hand,
    IllegalActionError,
    SpecError,
    ViewError,
    __version__,
    action_id,
    analyze,
    arena,
    bot_specs,
    duplicate_games,
    duplicate_match,
    encode,
    legal_mask,
    read_egn,
    write_egn,
)

SEATS = ("N", "E", "S", "W")
"""The seats in the order of play, North first; N and S are partners."""

__all__ = [
    "ACTIONS",
    "FEATURE_NAMES",
    "Bot",
    "BotError",
    "EgnError",
    "EuchreError",
    "Hand",
    "IllegalActionError",
    "SEATS",
    "SpecError",
    "ViewError",
    "__version__",
    "action_id",
    "analyze",
    "arena",
    "bot_specs",
    "duplicate_games",
    "duplicate_match",
    "encode",
    "legal_mask",
    "read_egn",
    "write_egn",
]
