"""The rules engine from Python: deals, actions, views, replay records."""

import random

import pytest

import euchre


def play_out(hand, rng):
    while not hand.is_over:
        hand.apply(rng.choice(hand.legal_actions()))
    return hand


def test_a_seed_deals_the_same_cards_every_time():
    assert euchre.Hand.deal(7).dealt == euchre.Hand.deal(7).dealt
    assert euchre.Hand.deal(7).dealt != euchre.Hand.deal(8).dealt


def test_every_random_hand_ends_with_the_points_of_the_tricks():
    rng = random.Random(1)
    for seed in range(200):
        hand = play_out(euchre.Hand.deal(seed, dealer=euchre.SEATS[seed % 4]), rng)
        points, tricks = hand.points, hand.tricks
        if hand.contract is None:
            assert points == {"north_south": 0, "east_west": 0}
            continue
        assert sum(tricks.values()) == 5
        assert sorted(points.values())[0] == 0 and max(points.values()) in (1, 2, 4)


def test_a_view_is_the_bot_api_request_of_the_seat_to_act():
    hand = euchre.Hand.deal(3, dealer="S")
    view = hand.view(seed=5)
    assert view["seat"] == hand.to_act == "W"
    assert view["dealer"] == "S" and view["upcard"] == hand.upcard
    assert view["hand"] == hand.hands["W"]
    assert view["legal"] == hand.legal_actions() == ["pass", "order", "order alone"]
    assert view["seed"] == 5
    # Every rule option is named, so a bot under other rules refuses it.
    assert view["dealer_may_discard_upcard"] is True


def test_other_seats_see_the_dealers_discard_face_down():
    hand = euchre.Hand.deal(3, dealer="S")
    hand.apply("order")
    dealer_view = hand.view()
    assert dealer_view["seat"] == "S"
    card = dealer_view["legal"][0]
    hand.apply(card)
    assert hand.view()["actions"] == ["order", "discard"]


def test_an_illegal_action_is_refused_with_the_legal_ones():
    hand = euchre.Hand.deal(1)
    with pytest.raises(euchre.IllegalActionError, match="legal: pass, order, order alone"):
        hand.apply("play Js")
    with pytest.raises(euchre.IllegalActionError, match="is not an action"):
        hand.apply("bid seven")
    assert hand.actions == []


def test_a_hand_from_named_cards_checks_them():
    hands = {"N": ["9c", "Tc", "Jc", "Qc", "Kc"], "E": ["Ac", "9d", "Td", "Jd", "Qd"],
             "S": ["Kd", "Ad", "9h", "Th", "Jh"], "W": ["Qh", "Kh", "Ah", "9s", "Ts"]}
    hand = euchre.Hand("N", hands, "Js")
    assert {seat: set(cards) for seat, cards in hand.dealt.items()} == {
        seat: set(cards) for seat, cards in hands.items()}
    assert hand.to_act == "E"
    hands["W"][0] = "9c"
    with pytest.raises(euchre.EuchreError, match="9c"):
        euchre.Hand("N", hands, "Js")
    with pytest.raises(euchre.EuchreError, match="seat"):
        euchre.Hand("X", hands, "Js")


def test_rule_options_are_named_and_unknown_ones_refused():
    hand = euchre.Hand.deal(1, rules={"stick_the_dealer": False})
    assert hand.rules["stick_the_dealer"] is False
    with pytest.raises(euchre.EuchreError, match="stick_the_daeler"):
        euchre.Hand.deal(1, rules={"stick_the_daeler": False})
    with pytest.raises(euchre.EuchreError, match="rules"):
        euchre.Hand.deal(1, rules={"stick_the_dealer": "yes"})


def test_a_replay_record_rebuilds_the_hand():
    rng = random.Random(4)
    played = play_out(euchre.Hand.deal(11), rng)
    record = {"dealer": played.dealer, "hands": played.dealt, "upcard": played.upcard,
              "actions": [action for _, action in played.actions]}
    again = euchre.Hand.replay(record)
    assert again.actions == played.actions and again.points == played.points
    record["actions"][2] = "play Zz"
    with pytest.raises(euchre.IllegalActionError, match=r"actions\[2\]"):
        euchre.Hand.replay(record)


def test_a_score_is_carried_into_the_view():
    hand = euchre.Hand.deal(2, score={"north_south": 8, "east_west": 9})
    assert hand.view()["score"] == {"north_south": 8, "east_west": 9, "target": 10}
    with pytest.raises(euchre.EuchreError, match="game is over"):
        euchre.Hand.deal(2, score={"north_south": 10, "east_west": 9})


def test_wrong_argument_types_raise_type_errors():
    with pytest.raises(TypeError):
        euchre.Hand.deal("seven")
    with pytest.raises(TypeError):
        euchre.Hand.deal(1).apply(5)
