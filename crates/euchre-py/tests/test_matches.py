"""Duplicate matches and games, with Python callables seated as bots."""

import pytest

import euchre


def test_a_python_bot_that_plays_as_the_heuristic_scores_exactly_level():
    # The view a callable gets, given back to a bot, is the position itself:
    # the same bot on both sides of every duplicate deal nets exactly zero.
    heuristic = euchre.Bot("heuristic")

    def mirror(view):
        return heuristic.act(view)

    result = euchre.duplicate_match(mirror, "heuristic", hands=200, seed=4)
    assert result["net_per_hand"] == 0.0 and result["net_interval"] == 0.0
    assert result["a"] == "mirror" and result["hands"] == 200


def test_a_match_is_the_same_for_its_seed_and_piece_size():
    one = euchre.duplicate_match("pimc:4", "heuristic", hands=60, seed=9, threads=1)
    two = euchre.duplicate_match("pimc:4", "heuristic", hands=60, seed=9, threads=2)
    assert one == two


def test_the_heuristic_beats_random_clearly():
    result = euchre.duplicate_match("heuristic", "random", hands=400, seed=1)
    assert result["net_per_hand"] - result["net_interval"] > 0.8
    assert result["point_share"] > 0.75


def test_games_to_ten_report_the_share_with_its_interval():
    result = euchre.duplicate_games("heuristic", "random", pairs=30, seed=2)
    assert result["games"] == 60 and result["a_won"] + result["b_won"] + result["unfinished"] == 60
    assert result["share"] > 0.9 and 0 <= result["share_interval"] < 0.1
    assert result["target"] == 10


def test_a_python_bots_exception_stops_the_match_and_is_raised():
    class Broken(Exception):
        pass

    def broken(view):
        raise Broken("no idea")

    with pytest.raises(Broken, match="no idea"):
        euchre.duplicate_match(broken, "heuristic", hands=100)


def test_an_illegal_answer_is_a_bot_error_naming_the_bot():
    def cheater(view):
        return "play As"

    with pytest.raises(euchre.BotError, match="cheater"):
        euchre.duplicate_match(cheater, "heuristic", hands=10)

    def wrong_type(view):
        return 3

    with pytest.raises(euchre.BotError, match="wrong_type answered 3"):
        euchre.duplicate_games(wrong_type, "heuristic", pairs=1)


def test_bad_match_arguments_are_refused():
    with pytest.raises(euchre.EuchreError, match="even"):
        euchre.duplicate_match("heuristic", "random", hands=3)
    with pytest.raises(euchre.EuchreError, match="spec string"):
        euchre.duplicate_match(42, "random", hands=2)
    with pytest.raises(euchre.EuchreError, match="target"):
        euchre.duplicate_games("heuristic", "random", pairs=1, target=0)
    with pytest.raises(euchre.SpecError, match="built for"):
        euchre.duplicate_match(euchre.Bot("heuristic", rules={"stick_the_dealer": False}),
                               "random", hands=2)


def test_an_arena_rates_the_panel_on_shared_deals():
    heuristic = euchre.Bot("heuristic")

    def mirror(view):
        return heuristic.act(view)

    panel = {"heuristic": "heuristic", "mirror": mirror, "random": "random"}
    result = euchre.arena(panel, hands=200, seed=3)
    assert result["bots"] == ["heuristic", "mirror", "random"] and result["unit"] == "points"
    pairs = {(p["a"], p["b"]): p for p in result["pairs"]}
    assert pairs[("heuristic", "mirror")]["net_per_hand"] == 0.0
    ratings = {r["bot"]: r for r in result["ratings"]}
    assert ratings["heuristic"]["share"] == pytest.approx(ratings["mirror"]["share"])
    assert ratings["random"]["high"] < 0.5 < ratings["heuristic"]["low"]
    assert ratings["random"]["weakest_against"] in ("heuristic", "mirror")
    assert ratings["heuristic"]["weakest_against"] == "mirror"
    games = euchre.arena(panel, games=10, seed=3)
    assert games["unit"] == "games" and all(p["games"] == 20 for p in games["pairs"])
    with pytest.raises(euchre.EuchreError, match="at least two"):
        euchre.arena({"one": "heuristic"})
