//! The heuristic's rules one by one, each on a hand built for it: one test
//! a line of the table in `bots/heuristic.rs`, so a rule that changes
//! fails by name. Every deal is a whole, legal deal; `dealt` names the
//! hands from the seat left of the dealer round to the dealer.

use euchre_bots::bots::heuristic::{self, ALONE, CALL, strength};
use euchre_bots::seen::Seen;
use euchre_game::engine::action::Action;
use euchre_game::engine::card::{Card, CardSet, Suit};
use euchre_game::engine::rules::Rules;
use euchre_game::engine::seat::Seat;
use euchre_game::engine::state::{Deal, GameState, Stage};

const DEALER: Seat = Seat::South;

fn card(text: &str) -> Card {
    text.parse().unwrap()
}

fn cards(text: &str) -> CardSet {
    text.parse().unwrap()
}

/// A hand in play: the deal, and the actions so far with who took them.
struct Hand {
    state: GameState,
    history: Vec<(Seat, Action)>,
}

impl Hand {
    /// Hands from the dealer's left round to the dealer, and the upcard.
    fn dealt(hands: [&str; 4], upcard: &str, rules: Rules) -> Hand {
        let mut by_seat = [CardSet::EMPTY; 4];
        let mut seat = DEALER.left();
        for hand in hands {
            by_seat[seat.index()] = cards(hand);
            seat = seat.left();
        }
        let deal = Deal::new(DEALER, by_seat, card(upcard)).unwrap();
        Hand {
            state: GameState::new(deal, rules),
            history: Vec::new(),
        }
    }

    fn then(mut self, actions: &[Action]) -> Hand {
        for &action in actions {
            let seat = self.state.to_act().unwrap();
            self.state.try_apply(action).unwrap();
            self.history.push((seat, action));
        }
        self
    }

    /// What the heuristic does now, at the seat to act.
    fn heuristic(&self) -> Action {
        heuristic::choose(&Seen::new(&self.state, &self.history))
    }
}

const PASS: Action = Action::Pass;
const ORDER: Action = Action::Order { alone: false };

fn play(text: &str) -> Action {
    Action::Play(card(text))
}

/// West, first to bid, holds `west`; North (the dealer's partner) holds
/// `north`. The others are weak; the upcard is the nine of spades.
fn spades_deal(west: &str, north: &str) -> Hand {
    Hand::dealt(
        [west, north, "JC TS QH JD QD", "AD KD AC KC QC"],
        "9S",
        Rules::default(),
    )
}

#[test]
fn round_one_counts_half_the_upcard_for_the_dealers_side_and_against_the_other() {
    let borderline = "JS KS AH 9D TC";
    assert_eq!(strength(cards(borderline), Suit::Spades), 5.5);
    // The nine of spades is worth 1, so half of it moves 5.5 to 5.0 for
    // the dealer's opponent and to 6.0, the call, for the dealer's partner.
    let opponent = spades_deal(borderline, "AS QS KH 9H TD");
    assert_eq!(opponent.heuristic(), PASS);
    let partner = spades_deal("AS QS KH 9H TD", borderline).then(&[PASS]);
    assert_eq!(strength(cards(borderline), Suit::Spades) + 0.5, CALL);
    assert_eq!(partner.heuristic(), ORDER);
}

#[test]
fn a_hand_with_the_right_bower_four_trumps_and_the_strength_goes_alone() {
    let lone = "JS JC AS KS AH";
    assert!(strength(cards(lone), Suit::Spades) >= ALONE);
    let hand = Hand::dealt(
        [lone, "QS KH 9H TD 9D", "TS QH JD QD TC", "AD KD AC KC QC"],
        "9S",
        Rules::default(),
    );
    assert_eq!(hand.heuristic(), Action::Order { alone: true });
    // The same strength short of the right bower orders with its partner.
    let no_right = "JC AS KS QS AH";
    let hand = Hand::dealt(
        [
            no_right,
            "JS KH 9H TD 9D",
            "TS QH JD QD TC",
            "AD KD AC KC QC",
        ],
        "9S",
        Rules::default(),
    );
    assert_eq!(hand.heuristic(), ORDER);
}

#[test]
fn round_two_names_the_strongest_other_suit_at_the_call_and_a_stuck_dealer_names_it_anyway() {
    let hand = Hand::dealt(
        [
            "JH AH KH 9C TC",
            "QS KS 9H TD 9D",
            "JC TS QH JD QD",
            "AD KD AC KC QC",
        ],
        "9S",
        Rules::default(),
    )
    .then(&[PASS; 4]);
    assert!(strength(cards("JH AH KH 9C TC"), Suit::Hearts) >= CALL);
    assert_eq!(
        hand.heuristic(),
        Action::Call {
            suit: Suit::Hearts,
            alone: false
        }
    );
    // The dealer's best other suit is diamonds, far short of the call.
    let stuck = Hand::dealt(
        [
            "JH AH KH 9C TC",
            "AD KD AC KC QC",
            "JC TS QH JD QD",
            "QS KS 9H TD 9D",
        ],
        "9S",
        Rules::default(),
    )
    .then(&[PASS; 7]);
    assert_eq!(stuck.state.to_act(), Some(DEALER));
    assert!(strength(cards("QS KS 9H TD 9D"), Suit::Diamonds) < CALL);
    assert_eq!(
        stuck.heuristic(),
        Action::Call {
            suit: Suit::Diamonds,
            alone: false
        }
    );
}

#[test]
fn the_dealer_discards_to_a_void_else_the_lowest_non_ace_else_the_lowest_card() {
    let spades = Suit::Spades;
    // A singleton non-ace goes, to make a void (the singleton ace stays).
    assert_eq!(
        heuristic::discard(cards("9S JS AD KD 9H AC"), spades),
        card("9H")
    );
    // No singleton: the lowest non-ace.
    assert_eq!(
        heuristic::discard(cards("9S JS AD KD QH KH"), spades),
        card("QH")
    );
    // Trump is kept while anything else is left, even an ace.
    assert_eq!(
        heuristic::discard(cards("9S JS AS KS QS AD"), spades),
        card("AD")
    );
    assert_eq!(
        heuristic::discard(cards("9S TS JS QS KS AS"), spades),
        card("9S")
    );
}

/// Under Canadian loners the dealer's partner may order only alone: the
/// hand that orders with its partner under the standard rules passes, and
/// a loner's hand still orders alone.
#[test]
fn under_canadian_loners_the_dealers_partner_orders_only_with_a_loners_hand() {
    let canadian = Rules {
        canadian_loners: true,
        ..Rules::default()
    };
    let borderline = "JS KS AH 9D TC";
    let seated = |north: &str, rules| {
        Hand::dealt(
            ["AS QS KH 9H TD", north, "JC TS QH JD QD", "AD KD AC KC QC"],
            "9S",
            rules,
        )
        .then(&[PASS])
    };
    assert_eq!(seated(borderline, Rules::default()).heuristic(), ORDER);
    assert_eq!(seated(borderline, canadian).heuristic(), PASS);
    let lone = "JS JC AS KS AH";
    let hand = Hand::dealt(
        ["QS TS KH 9H TD", lone, "QH JD QD TC 9D", "AD KD AC KC QC"],
        "9S",
        canadian,
    )
    .then(&[PASS]);
    assert_eq!(hand.heuristic(), Action::Order { alone: true });
}

#[test]
fn a_lone_maker_is_never_defended_alone() {
    let rules = Rules {
        lone_defender: true,
        ..Rules::default()
    };
    let hand = Hand::dealt(
        [
            "JS JC AS KS AH",
            "QS KH 9H TD 9D",
            "TS QH JD QD TC",
            "AD KD AC KC QC",
        ],
        "9S",
        rules,
    )
    .then(&[Action::Order { alone: true }]);
    // The dealer picks up first; the defenders are then asked.
    let hand = if hand.state.stage() == Stage::DealerDiscard {
        let discard = hand.heuristic();
        hand.then(&[discard])
    } else {
        hand
    };
    assert_eq!(hand.state.stage(), Stage::DefendAlone);
    assert!(hand.state.legal_actions().contains(Action::DefendAlone));
    assert_eq!(hand.heuristic(), PASS);
}

/// West ordered (or North, the dealer's partner, did) and the dealer has
/// discarded: West leads the first trick.
fn west_leads(west: &str, north: &str, maker_is_west: bool) -> Hand {
    let bids: &[Action] = if maker_is_west {
        &[ORDER]
    } else {
        &[PASS, ORDER]
    };
    let hand = spades_deal(west, north).then(bids);
    let discard = hand.heuristic();
    let hand = hand.then(&[discard]);
    assert_eq!(hand.state.to_act(), Some(DEALER.left()));
    hand
}

#[test]
fn the_makers_lead_the_right_bower_then_their_best_trump_while_holding_two() {
    let right = west_leads("JS AS AH 9D TC", "KS QS KH 9H TD", true);
    assert_eq!(right.heuristic(), play("JS"));
    // Without the right bower, two trumps lead the better one.
    let best = Hand::dealt(
        [
            "TS AS AH 9D TC",
            "KS QS KH 9H TD",
            "JC JS QH JD QD",
            "AD KD AC KC QC",
        ],
        "9S",
        Rules::default(),
    )
    .then(&[ORDER]);
    let discard = best.heuristic();
    let best = best.then(&[discard]);
    assert_eq!(best.heuristic(), play("AS"));
}

#[test]
fn a_defender_cashes_an_off_suit_ace_else_leads_its_lowest_off_suit_card() {
    // Trumps in hand do not tempt a defender: the ace of hearts first.
    let ace = west_leads("JS AS AH 9D TC", "KS QS KH 9H TD", false);
    assert_eq!(ace.heuristic(), play("AH"));
    let lowest = west_leads("JS AS 9D TC KH", "KS QS AH 9H TD", false);
    assert_eq!(lowest.heuristic(), play("9D"));
}

#[test]
fn a_follower_never_overtakes_its_partner_and_throws_its_lowest_when_it_cannot_win() {
    let hand = west_leads("JS AS AH 9D TC", "KS QS KH 9H TD", true).then(&[play("JS")]);
    // North's partner holds the trick with the right bower: the queen, not
    // the king.
    assert_eq!(hand.heuristic(), play("QS"));
    let hand = hand.then(&[play("QS")]);
    // East cannot beat the right bower: the ten, not the left bower.
    assert_eq!(hand.heuristic(), play("TS"));
}

#[test]
fn a_follower_wins_an_opponents_trick_as_cheaply_as_it_can() {
    let hand = west_leads("JS AS 9D TC KH", "KS QS AH 9H TD", false).then(&[play("9D")]);
    // North must follow with its one diamond, which wins.
    assert_eq!(hand.heuristic(), play("TD"));
    let hand = hand.then(&[play("TD")]);
    // East beats the ten with the jack, not the queen.
    assert_eq!(hand.heuristic(), play("JD"));
    let hand = hand.then(&[play("JD")]);
    // The dealer beats the jack with the king, not the ace.
    assert_eq!(hand.heuristic(), play("KD"));
}
