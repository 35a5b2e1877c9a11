"""Euchre Game Notation: real records read, hands written, games analysed."""

import random

import pytest

import euchre


def test_a_real_record_replays_every_deal(record_text):
    game = euchre.read_egn(record_text)
    assert len(game["names"]) == 4
    deals = [deal for deal in game["deals"] if "hand" in deal]
    assert deals and len(deals) == len(game["deals"])
    assert all(deal["hand"].is_over for deal in deals)


def test_hands_written_read_back_as_played():
    rng = random.Random(6)
    hands = []
    for seed in range(5):
        hand = euchre.Hand.deal(seed, dealer=euchre.SEATS[seed % 4])
        while not hand.is_over:
            hand.apply(rng.choice(hand.legal_actions()))
        hands.append(hand)
    text = euchre.write_egn(hands, names=["Ann", "Bo", "Cy", "Di"])
    game = euchre.read_egn(text)
    assert game["names"] == ["Ann", "Bo", "Cy", "Di"]
    assert [deal["hand"].actions for deal in game["deals"]] == [hand.actions for hand in hands]
    assert [deal["hand"].points for deal in game["deals"]] == [hand.points for hand in hands]


def test_a_record_that_is_not_egn_is_refused():
    with pytest.raises(euchre.EgnError):
        euchre.read_egn("{}")
    with pytest.raises(euchre.EgnError):
        euchre.read_egn("not json")
    with pytest.raises(euchre.EuchreError, match="none given"):
        euchre.write_egn([])


def test_a_game_analysed_judges_each_decision(record_text):
    analysis = euchre.analyze(record_text, judge="pimc:8", seed=1)
    decisions = [d for deal in analysis["deals"] for d in deal["decisions"]]
    assert decisions and all(d["made"] for d in decisions)
    assert len(analysis["players"]) == 4
    assert analysis["unit"]
