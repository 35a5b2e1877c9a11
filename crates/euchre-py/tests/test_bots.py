"""Bots by spec acting on views, and views that cannot be real refused."""

import pytest

import euchre


def test_every_builtin_bot_finishes_a_hand_with_legal_moves():
    for spec in ("random", "heuristic", "pimc:8", "pimc:8,game"):
        bot = euchre.Bot(spec)
        hand = euchre.Hand.deal(5, score={"north_south": 3, "east_west": 8})
        while not hand.is_over:
            hand.apply(bot.act(hand.view(), seed=1))
        assert hand.is_over


def test_the_same_seed_gives_the_same_move():
    bot = euchre.Bot("pimc:8")
    view = euchre.Hand.deal(9).view()
    assert {bot.act(view, seed=3) for _ in range(5)} == {bot.act(view, seed=3)}


def test_a_valuing_bot_reports_a_value_for_each_legal_action():
    answer = euchre.Bot("pimc:16").decide(euchre.Hand.deal(9).view(), seed=2)
    assert [row["action"] for row in answer["values"]] == ["pass", "order", "order alone"]
    assert answer["action"] in {"pass", "order", "order alone"}
    assert answer["probabilities"] is None
    assert answer["unit"] == "points a hand"
    assert euchre.Bot("heuristic").decide(euchre.Hand.deal(9).view())["values"] is None


def test_a_bad_spec_is_refused_by_name():
    with pytest.raises(euchre.SpecError, match="pimc:abc"):
        euchre.Bot("pimc:abc")
    with pytest.raises(euchre.SpecError):
        euchre.Bot("policy:/nonexistent/policy.bin")


def test_a_file_that_is_not_a_policy_is_refused(tmp_path):
    foreign = tmp_path / "policy.bin"
    foreign.write_bytes(b"not a policy file at all" * 100)
    with pytest.raises(euchre.SpecError, match="policy.bin"):
        euchre.Bot(f"policy:{foreign}")


def test_a_view_that_contradicts_itself_is_refused():
    bot = euchre.Bot("heuristic")
    view = euchre.Hand.deal(9).view()
    wrong_legal = dict(view, legal=["pass"])
    with pytest.raises(euchre.ViewError, match="legal"):
        bot.act(wrong_legal)
    six_cards = dict(view, hand=view["hand"] + [view["upcard"]])
    with pytest.raises(euchre.ViewError):
        bot.act(six_cards)
    not_your_turn = dict(view, seat="N" if view["seat"] != "N" else "E")
    with pytest.raises(euchre.ViewError, match="turn"):
        bot.act(not_your_turn)
    unknown_key = dict(view, trump="s")
    with pytest.raises(euchre.ViewError, match="trump"):
        bot.act(unknown_key)
    with pytest.raises(euchre.ViewError, match="play Zz"):
        bot.act(dict(view, actions=["play Zz"]))


def test_a_view_under_other_rules_is_refused_by_the_bot():
    view = euchre.Hand.deal(9, rules={"stick_the_dealer": False}).view()
    with pytest.raises(euchre.ViewError, match="stick"):
        euchre.Bot("heuristic").act(view)
    assert euchre.Bot("heuristic", rules={"stick_the_dealer": False}).act(view)


def test_the_spec_list_names_the_recipes():
    assert "strongest:RUN" in euchre.bot_specs()


def test_a_bot_answers_a_hand_and_its_view_alike():
    # Bots read only what the seat to act may know, so the rebuilt deal
    # behind a view decides exactly as the true one.
    import random

    rng = random.Random(8)
    bot = euchre.Bot("pimc:6")
    for seed in range(30):
        hand = euchre.Hand.deal(seed, dealer=euchre.SEATS[seed % 4])
        while not hand.is_over:
            assert bot.act(hand, seed=seed) == bot.act(hand.view(), seed=seed)
            hand.apply(rng.choice(hand.legal_actions()))


def test_a_hand_under_other_rules_or_over_is_refused():
    hand = euchre.Hand.deal(1, rules={"stick_the_dealer": False})
    with pytest.raises(euchre.ViewError, match="played under"):
        euchre.Bot("heuristic").act(hand)
    done = euchre.Hand.deal(1)
    while not done.is_over:
        done.apply(done.legal_actions()[0])
    with pytest.raises(euchre.ViewError, match="over"):
        euchre.Bot("heuristic").act(done)
    with pytest.raises(euchre.ViewError, match="not int"):
        euchre.Bot("heuristic").act(5)
