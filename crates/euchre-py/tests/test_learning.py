"""What a learning agent needs: the view as numbers, actions by id."""

import random

import pytest

import euchre


def positions(count, seed):
    rng = random.Random(seed)
    for index in range(count):
        hand = euchre.Hand.deal(index, dealer=euchre.SEATS[index % 4],
                                score={"north_south": index % 10, "east_west": 9 - index % 10})
        while not hand.is_over:
            yield hand
            hand.apply(rng.choice(hand.legal_actions()))


def test_every_action_word_has_its_id_and_back():
    assert len(euchre.ACTIONS) == 60 == len(set(euchre.ACTIONS))
    for index, word in enumerate(euchre.ACTIONS):
        assert euchre.action_id(word) == index
    with pytest.raises(euchre.EuchreError):
        euchre.action_id("bid seven")


def test_the_mask_marks_exactly_the_legal_actions():
    for hand in positions(40, 1):
        mask = euchre.legal_mask(hand)
        assert [euchre.ACTIONS[i] for i, on in enumerate(mask) if on] == sorted(
            hand.legal_actions(), key=euchre.action_id)


def test_a_hand_and_its_view_encode_alike():
    # The encoding reads only what the seat to act knows.
    for hand in positions(40, 2):
        numbers = euchre.encode(hand)
        assert len(numbers) == len(euchre.FEATURE_NAMES)
        assert numbers == euchre.encode(hand.view())


def test_the_numbers_say_what_their_names_say():
    hand = euchre.Hand.deal(4, dealer="W", score={"north_south": 6, "east_west": 8})
    numbers = dict(zip(euchre.FEATURE_NAMES, euchre.encode(hand)))
    assert hand.to_act == "N"
    assert numbers["dealer:3"] == 1.0  # West sits to North's right
    assert all(numbers[f"hand:{card}"] == 1.0 for card in hand.hands["N"])
    every_card = [word.split()[1] for word in euchre.ACTIONS if word.startswith("play")]
    assert sum(numbers[f"hand:{card}"] for card in every_card) == 5
    assert numbers[f"upcard:{hand.upcard}"] == 1.0
    assert numbers["in_game"] == 1.0
    assert numbers["score_ours"] == pytest.approx(0.6) and numbers["score_theirs"] == pytest.approx(0.8)
    assert numbers["stage:bidding1"] == 1.0
