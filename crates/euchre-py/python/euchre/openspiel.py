"""This project's bots seated in OpenSpiel's ``euchre``.

OpenSpiel (``pip install open_spiel``) has euchre but no euchre bot beyond
generic search. :class:`Bot` is an OpenSpiel bot (``pyspiel.Bot``) that
plays any spec this package accepts, so OpenSpiel's own bots (IS-MCTS, a
researcher's agent) play ours in OpenSpiel's loop; :func:`duplicate_match`
plays such bots against each other on duplicate deals.

How the two games line up (OpenSpiel's ``euchre.cc`` read, not assumed):

- Seats: OpenSpiel's players 0 to 3 are North, East, South, West.
- Cards: OpenSpiel's card ``rank * 4 + suit`` (ranks ``9TJQKA``, suits
  ``CDHS``) is this package's ``"Js"``-style word.
- Rules: OpenSpiel's dealer may not discard the upcard, so its euchre is
  this engine's ``dealer_may_discard_upcard = False``; ``stick_the_dealer``
  maps to itself. OpenSpiel's ``allow_lone_defender`` lets a defender go
  alone against makers playing together, which this engine's
  ``lone_defender`` rule does not, so it is refused by name. Scores agree:
  OpenSpiel's makers score +1, +2, +4 alone and -2 when euchred, the
  difference this engine's points make.
- Order of decisions: OpenSpiel asks whether the maker goes alone after
  the bid (and after the dealer's discard); this engine's bid says it
  ("order alone"). The bridge asks our bot once, at the bid, and answers
  OpenSpiel's later question from the same decision (the bot is asked again
  with the same seed). A dealer asked to discard before the maker has said
  is shown the bid as not alone; where the dealer's partner then goes
  alone, the discard is dropped, as this engine never asks for it.

A bot whose policy was trained under other rules than OpenSpiel's game
plays is refused by name when it is built (``euchre.SpecError``).
"""

from __future__ import annotations

import hashlib
import math
import random
from typing import Callable, Iterable, Sequence

import pyspiel

import euchre

RANKS = "9TJQKA"
SUITS = "CDHS"
PASS = 24
TRUMP = {suit: 25 + index for index, suit in enumerate(SUITS)}
GO_ALONE = 29
WITH_PARTNER = 30
#: Chance actions before the first bid: the dealer, 20 cards, the upcard.
FIRST_BID = 22


def card_word(card: int) -> str:
    """OpenSpiel's card number as this package's word (``"Js"``)."""
    return RANKS[card // 4] + SUITS[card % 4].lower()


def card_number(word: str) -> int:
    """This package's card word as OpenSpiel's card number."""
    return RANKS.index(word[0].upper()) * 4 + SUITS.index(word[1].upper())


def action_number(word: str, upcard: str) -> int:
    """This engine's action word as OpenSpiel's action number in a hand
    whose upcard is ``upcard``. OpenSpiel asks alone-or-not separately, so
    ``"order alone"`` and ``"order"`` are both the bid of the upcard's suit."""
    verb, _, rest = word.partition(" ")
    if verb == "pass":
        return PASS
    if verb == "order":
        return TRUMP[upcard[1].upper()]
    if verb == "call":
        return TRUMP[rest.split()[0].upper()]
    if verb in ("discard", "play"):
        return card_number(rest)
    raise euchre.EuchreError(f"{word!r} has no OpenSpiel action (defend alone is refused with the rule)")


def rules_of(game: pyspiel.Game) -> dict:
    """This engine's rules for OpenSpiel's euchre ``game``."""
    params = game.get_parameters()
    if params.get("allow_lone_defender", False):
        raise euchre.EuchreError(
            "OpenSpiel's allow_lone_defender lets a defender go alone against "
            "makers who play together, a rule this engine does not play; "
            "load the game without it (pyspiel.load_game('euchre'))"
        )
    return {
        "stick_the_dealer": bool(params.get("stick_the_dealer", True)),
        "lone_defender": False,
        "dealer_may_discard_upcard": False,
        # OpenSpiel's play starts left of the dealer, a lone maker's or not.
        "loner_lead": "left-of-dealer",
        "canadian_loners": False,
    }


def _dealt(history: Sequence[int]) -> tuple[str, dict, str]:
    dealer = history[0]
    hands: dict[str, list[str]] = {seat: [] for seat in euchre.SEATS}
    for index, card in enumerate(history[1:21]):
        hands[euchre.SEATS[(dealer + index) % 4]].append(card_word(card))
    return euchre.SEATS[dealer], hands, card_word(history[21])


def _actions(
    full_history: Sequence[tuple[int, int]], dealer: int, upcard: int
) -> list[str]:
    """OpenSpiel's player actions as this engine's words. A bid whose
    alone question is not yet answered reads as not alone."""
    words: list[object] = []
    passes = 0
    bid = None  # [index in words, player, suit letter, round, alone]
    discard_at = None
    defenders_asked = False
    for player, action in full_history:
        if action == PASS:
            passes += 1
            words.append("pass")
        elif action in TRUMP.values():
            suit = SUITS[action - 25].lower()
            bid = [len(words), player, suit, 1 if passes < 4 else 2, False]
            words.append(bid)
        elif action in (GO_ALONE, WITH_PARTNER):
            if bid is not None and not defenders_asked:
                bid[4] = action == GO_ALONE
                defenders_asked = True
            else:
                words.append("defend alone" if action == GO_ALONE else "pass")
        elif bid is not None and bid[3] == 1 and discard_at is None and (
            player == dealer and len(words) == bid[0] + 1
        ):
            discard_at = len(words)
            words.append("discard " + card_word(action))
        else:
            words.append("play " + card_word(action))
    if bid is not None:
        index, player, suit, round_, alone = bid
        verb = "order" if round_ == 1 else "call " + suit
        words[index] = verb + (" alone" if alone else "")
        partner_alone = alone and (player + 2) % 4 == dealer
        if round_ == 1 and partner_alone and discard_at is not None:
            del words[discard_at]
    return [str(word) for word in words]


def hand_of(state: pyspiel.State, rules: dict) -> euchre.Hand:
    """This engine's hand at OpenSpiel's ``state`` (past the deal)."""
    history = state.history()
    if len(history) < FIRST_BID:
        raise euchre.EuchreError("the cards are still being dealt: no hand yet")
    dealer, hands, upcard = _dealt(history)
    hand = euchre.Hand(dealer, hands, upcard, rules=rules)
    played = [(item.player, item.action) for item in state.full_history()[FIRST_BID:]]
    for word in _actions(played, history[0], history[21]):
        hand.apply(word)
    return hand


def _seed(seed: int, history: Sequence[int]) -> int:
    digest = hashlib.blake2b(
        repr((seed, tuple(history))).encode(), digest_size=8
    ).digest()
    return int.from_bytes(digest, "little")


class Bot(pyspiel.Bot):
    """One of this package's bots as an OpenSpiel bot for ``game``
    (OpenSpiel's euchre). ``bot`` is a spec or a :class:`euchre.Bot`; its
    choices are reproducible for ``seed``."""

    def __init__(self, game: pyspiel.Game, bot, seed: int = 0):
        pyspiel.Bot.__init__(self)
        if game.get_type().short_name != "euchre":
            raise euchre.EuchreError(
                f"this bridge plays OpenSpiel's 'euchre', not "
                f"'{game.get_type().short_name}'"
            )
        self._rules = rules_of(game)
        self._bot = bot if isinstance(bot, euchre.Bot) else euchre.Bot(bot, rules=self._rules)
        if self._bot.rules != self._rules:
            raise euchre.SpecError(
                f"{self._bot.spec} was built for {self._bot.rules}; OpenSpiel's "
                f"game plays {self._rules}"
            )
        self._seed = seed

    @property
    def bot(self) -> euchre.Bot:
        return self._bot

    def restart_at(self, state):
        pass

    def inform_action(self, state, player_id, action):
        pass

    def step(self, state: pyspiel.State) -> int:
        history = state.history()
        legal = state.legal_actions()
        if legal and legal[0] in (GO_ALONE, WITH_PARTNER):
            return self._alone(state)
        hand = hand_of(state, self._rules)
        word = self._bot.act(hand.view(), seed=_seed(self._seed, history))
        return action_number(word, hand.upcard)

    def _alone(self, state: pyspiel.State) -> int:
        """The maker's alone question: the bot's own bid, asked again at the
        bid with the seed it was asked with then."""
        full = state.full_history()
        bid_at = max(
            index for index, item in enumerate(full) if item.action in TRUMP.values()
        )
        before = state.get_game().new_initial_state()
        for item in full[:bid_at]:
            before.apply_action(item.action)
        hand = hand_of(before, self._rules)
        word = self._bot.act(hand.view(), seed=_seed(self._seed, before.history()))
        return GO_ALONE if word.endswith(" alone") else WITH_PARTNER


def deal_chances(game: pyspiel.Game, rng: random.Random) -> list[int]:
    """One deal's chance actions (the dealer, 20 cards, the upcard)."""
    state = game.new_initial_state()
    chances = []
    while state.is_chance_node():
        actions = [action for action, _ in state.chance_outcomes()]
        action = rng.choice(actions)
        chances.append(action)
        state.apply_action(action)
    return chances


def play_deal(
    game: pyspiel.Game, chances: Iterable[int], bots: Sequence[pyspiel.Bot]
) -> list[float]:
    """Plays one deal with ``bots`` by OpenSpiel player; the returns."""
    state = game.new_initial_state()
    for action in chances:
        state.apply_action(action)
    for bot in bots:
        bot.restart_at(state)
    while not state.is_terminal():
        player = state.current_player()
        action = bots[player].step(state)
        for other, bot in enumerate(bots):
            if other != player:
                bot.inform_action(state, player, action)
        state.apply_action(action)
    return state.returns()


def duplicate_match(
    game: pyspiel.Game,
    make_a: Callable[[int], pyspiel.Bot],
    make_b: Callable[[int], pyspiel.Bot],
    deals: int = 100,
    seed: int = 1,
) -> dict:
    """A duplicate match in OpenSpiel's loop: each deal played twice, A
    north-south then east-west, with ``make_a(player)`` and
    ``make_b(player)`` building each side's bot for a seat. A's points a
    hand minus B's with its 95% interval over deals, as ``trainer eval``
    reports it."""
    if deals < 2:
        raise euchre.EuchreError(f"deals: {deals}; at least 2 for an interval")
    rng = random.Random(seed)
    a = [make_a(player) for player in range(4)]
    b = [make_b(player) for player in range(4)]
    nets = []
    for _ in range(deals):
        chances = deal_chances(game, rng)
        a_north_south = play_deal(game, chances, [a[0], b[1], a[2], b[3]])
        a_east_west = play_deal(game, chances, [b[0], a[1], b[2], a[3]])
        # Each side's returns are its points minus the other side's.
        nets.append((a_north_south[0] + a_east_west[1]) / 2)
    mean = sum(nets) / deals
    variance = sum((net - mean) ** 2 for net in nets) / (deals - 1)
    return {
        "hands": 2 * deals,
        "seed": seed,
        "net_per_hand": mean,
        "net_interval": 1.96 * math.sqrt(variance / deals),
    }
