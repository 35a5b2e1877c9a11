"""The bridge into OpenSpiel's euchre, checked against OpenSpiel itself."""

import random

import pytest

pyspiel = pytest.importorskip("pyspiel")

import euchre  # noqa: E402
from euchre import openspiel as bridge  # noqa: E402


def random_states(game, games, seed):
    """Every decision of random games, and each game's end."""
    rng = random.Random(seed)
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
                continue
            yield state
            state.apply_action(rng.choice(state.legal_actions()))
        yield state


@pytest.mark.parametrize("stick", [True, False])
def test_the_engine_agrees_with_openspiel_on_every_decision_and_score(stick):
    game = pyspiel.load_game("euchre", {"stick_the_dealer": stick})
    rules = bridge.rules_of(game)
    for state in random_states(game, 300, seed=int(stick)):
        hand = bridge.hand_of(state, rules)
        if state.is_terminal():
            assert hand.is_over
            points = hand.points
            assert state.returns()[0] == points["north_south"] - points["east_west"]
            continue
        legal = state.legal_actions()
        if legal[0] in (bridge.GO_ALONE, bridge.WITH_PARTNER):
            continue  # asked inside this engine's bid
        assert hand.to_act == euchre.SEATS[state.current_player()]
        ours = {bridge.action_number(word, hand.upcard) for word in hand.legal_actions()}
        assert ours == set(legal), (str(state), hand.legal_actions())


def test_the_lone_defender_variant_is_refused_by_name():
    game = pyspiel.load_game("euchre", {"allow_lone_defender": True})
    with pytest.raises(euchre.EuchreError, match="allow_lone_defender"):
        bridge.Bot(game, "heuristic")


def test_a_policy_trained_under_other_rules_is_refused():
    game = pyspiel.load_game("euchre")
    with pytest.raises(euchre.SpecError, match="built for"):
        bridge.Bot(game, euchre.Bot("heuristic"))


def test_our_bots_play_whole_games_in_openspiels_loop():
    game = pyspiel.load_game("euchre")
    bots = [bridge.Bot(game, "pimc:4", seed=player) for player in range(4)]
    rng = random.Random(5)
    for _ in range(20):
        returns = bridge.play_deal(game, bridge.deal_chances(game, rng), bots)
        assert returns[0] == returns[2] == -returns[1]


def test_a_bot_against_itself_is_level_on_duplicate_deals():
    game = pyspiel.load_game("euchre")
    result = bridge.duplicate_match(
        game,
        lambda player: bridge.Bot(game, "heuristic"),
        lambda player: bridge.Bot(game, "heuristic"),
        deals=20,
    )
    assert result["net_per_hand"] == 0.0


def test_the_heuristic_beats_openspiels_random_bot():
    from open_spiel.python.bots.uniform_random import UniformRandomBot

    game = pyspiel.load_game("euchre")
    result = bridge.duplicate_match(
        game,
        lambda player: bridge.Bot(game, "heuristic"),
        lambda player: UniformRandomBot(player, random.Random(player)),
        deals=100,
    )
    assert result["net_per_hand"] - result["net_interval"] > 0.5
