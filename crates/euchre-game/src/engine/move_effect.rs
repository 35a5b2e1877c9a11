//! What a move does, in a phrase a player checks against the cards ("wins
//! the trick: no card still out beats it", "throws off 9♣, leaving you void
//! in ♣"). It says nothing of whether the move is good: a hint's values say
//! that, and this gives them a reason a player can see on the table. Only
//! what the mover can see is used: their hand, the cards played, the bids.

use super::action::Action;
use super::card::{Card, CardSet, Suit};
use super::seat::Seat;
use super::state::{GameState, Stage};
use super::trump::{cards_of_suit, effective_suit, trick_strength, trump_order};
use super::words::Glyphs;

/// What `action` does for the seat to act in `state`, as a phrase that
/// follows "it" ("wins the trick", "orders ♠ up with 3 trumps"). `action`
/// should be legal; an illegal one is described as if it were.
pub fn move_effect(state: &GameState, action: Action, glyphs: &dyn Glyphs) -> String {
    let Some(seat) = state.to_act() else {
        return "ends the hand".to_owned();
    };
    match action {
        Action::Pass if state.stage() == Stage::BiddingRound1 => {
            format!(
                "passes, leaving {} for the others to order up or turn down",
                glyphs.card(state.upcard())
            )
        }
        Action::Pass => "passes, leaving trump to the others".to_owned(),
        Action::Order { alone } => {
            let suit = state.upcard().suit();
            let mut held = state.hand(seat);
            if seat == state.dealer() {
                held = held.with(state.upcard());
            }
            format!(
                "makes {} trump, {}{}",
                glyphs.suit(suit),
                trumps_held(held, suit, glyphs),
                alone_words(alone)
            )
        }
        Action::Call { suit, alone } => format!(
            "names {} trump, {}{}",
            glyphs.suit(suit),
            trumps_held(state.hand(seat), suit, glyphs),
            alone_words(alone)
        ),
        Action::DefendAlone => {
            "defends alone: your partner sits out, and euchring a lone maker alone scores 4"
                .to_owned()
        }
        Action::Discard(card) => discard_effect(state, seat, card, glyphs),
        Action::Play(card) => play_effect(state, seat, card, glyphs),
    }
}

fn alone_words(alone: bool) -> &'static str {
    if alone {
        "; alone, your partner sits out and taking all five tricks scores 4"
    } else {
        ""
    }
}

/// "holding 3 trumps (the right bower among them)".
fn trumps_held(hand: CardSet, trump: Suit, glyphs: &dyn Glyphs) -> String {
    let trumps = hand.intersection(cards_of_suit(trump, trump));
    let count = trumps.len();
    let bowers: Vec<&str> = [
        (Card::new(trump, super::card::Rank::Jack), "the right bower"),
        (
            Card::new(trump.same_colour(), super::card::Rank::Jack),
            "the left bower",
        ),
    ]
    .into_iter()
    .filter(|(card, _)| trumps.contains(*card))
    .map(|(_, name)| name)
    .collect();
    let cards: Vec<String> = {
        let mut held: Vec<Card> = trumps.iter().collect();
        held.sort_by_key(|&card| std::cmp::Reverse(trump_order(card, trump)));
        held.into_iter().map(|card| glyphs.card(card)).collect()
    };
    match count {
        0 => "holding no trump".to_owned(),
        _ => format!(
            "holding {count} trump{} ({}){}",
            if count == 1 { "" } else { "s" },
            cards.join(" "),
            if bowers.is_empty() {
                String::new()
            } else {
                format!(", {}", bowers.join(" and "))
            }
        ),
    }
}

/// The cards neither played nor in `seat`'s hand: what the others may hold.
fn still_out(state: &GameState, seat: Seat) -> CardSet {
    CardSet::FULL_DECK
        .minus(state.played())
        .minus(state.hand(seat))
}

fn discard_effect(state: &GameState, seat: Seat, card: Card, glyphs: &dyn Glyphs) -> String {
    let trump = state.upcard().suit();
    let suit = effective_suit(card, trump);
    let kept = state.hand(seat).without(card);
    if suit == trump {
        return format!("discards {}, a trump", glyphs.card(card));
    }
    if kept.intersection(cards_of_suit(suit, trump)).is_empty() {
        format!(
            "discards {}, leaving you void in {} so that you can trump it",
            glyphs.card(card),
            glyphs.suit(suit)
        )
    } else {
        format!(
            "discards {}, keeping your stronger cards",
            glyphs.card(card)
        )
    }
}

fn play_effect(state: &GameState, seat: Seat, card: Card, glyphs: &dyn Glyphs) -> String {
    let Some(contract) = state.contract() else {
        return format!("plays {}", glyphs.card(card));
    };
    let trump = contract.trump;
    let trick = state.trick();
    let suit = effective_suit(card, trump);
    let out = still_out(state, seat);
    // Whether any card still out could beat `card` in a trick led in `led`.
    let beatable = |led: Suit| {
        let strength = trick_strength(card, trump, led);
        out.iter()
            .any(|other| trick_strength(other, trump, led) > strength)
    };
    if trick.card_count() == 0 {
        return if suit == trump && !beatable(trump) {
            format!(
                "leads {}, the highest trump left: no card still out beats it",
                glyphs.card(card)
            )
        } else if suit == trump {
            "leads trump, drawing the others' trumps".to_owned()
        } else if !beatable(suit) {
            format!(
                "leads {}, the highest {} left: it wins unless someone is void and trumps it",
                glyphs.card(card),
                glyphs.suit(suit)
            )
        } else {
            format!(
                "leads {} without the highest {} left, keeping your stronger cards",
                glyphs.card(card),
                glyphs.suit(suit)
            )
        };
    }
    let players = Seat::ALL
        .into_iter()
        .filter(|&other| !state.sits_out(other))
        .count() as u32;
    let last = trick.card_count() + 1 == players;
    let winning = trick.winner(trump).unwrap_or(seat);
    let partner_winning = winning == seat.partner();
    let best = trick_strength(trick.cards[winning.index()], trump, trick.led);
    let mine = trick_strength(card, trump, trick.led);
    if mine > best {
        let how = if suit == trump && trick.led != trump {
            "trumps in and "
        } else {
            ""
        };
        let takes = if last {
            "wins the trick".to_owned()
        } else if !beatable(trick.led) {
            "wins the trick: no card still out beats it".to_owned()
        } else {
            "takes the lead in the trick for now".to_owned()
        };
        let over = if partner_winning {
            ", over your partner's winning card"
        } else {
            ""
        };
        return format!("{how}{takes}{over}");
    }
    let hand = state.hand(seat);
    let kept = hand.without(card);
    let voids = suit != trick.led && kept.intersection(cards_of_suit(suit, trump)).is_empty();
    let cheapest = state
        .playable_cards()
        .iter()
        .all(|other| card_rank_value(other, trump) >= card_rank_value(card, trump));
    let mut phrase = if partner_winning {
        "lets your partner's card win the trick".to_owned()
    } else {
        "cannot win the trick".to_owned()
    };
    if suit != trick.led {
        phrase.push_str(&format!(", throwing off {}", glyphs.card(card)));
        if voids {
            phrase.push_str(&format!(" and leaving you void in {}", glyphs.suit(suit)));
        }
    } else if cheapest {
        phrase.push_str(", spending your lowest card");
    }
    phrase
}

/// A card's worth to keep, for "your lowest card": trumps above every
/// plain card, then by rank.
fn card_rank_value(card: Card, trump: Suit) -> u8 {
    if effective_suit(card, trump) == trump {
        16 + trump_order(card, trump)
    } else {
        card.rank() as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rules::Rules;
    use crate::engine::state::Deal;
    use crate::engine::words::Symbols;

    fn cards(text: &str) -> CardSet {
        text.split_whitespace()
            .map(|card| card.parse::<Card>().unwrap())
            .collect()
    }

    /// North deals and holds four hearts; East the black jacks; South four
    /// diamonds; West four clubs; the upcard 9♠.
    fn state() -> GameState {
        let deal = Deal::new(
            Seat::North,
            [
                cards("Ah Kh Qh Th Td"),
                cards("Js Jc As Ks 9c"),
                cards("Ad Kd Qd Jd 9h"),
                cards("Ac Kc Qc Tc 9d"),
            ],
            "9s".parse().unwrap(),
        )
        .unwrap();
        GameState::new(deal, Rules::default())
    }

    #[test]
    fn a_bid_names_the_trumps_it_holds() {
        let state = state();
        assert_eq!(state.to_act(), Some(Seat::East));
        let said = move_effect(&state, Action::Order { alone: false }, &Symbols);
        assert_eq!(
            said,
            "makes ♠ trump, holding 4 trumps (J♠ J♣ A♠ K♠), the right bower and the left bower"
        );
        let alone = move_effect(&state, Action::Order { alone: true }, &Symbols);
        assert!(
            alone.ends_with("taking all five tricks scores 4"),
            "{alone}"
        );
        assert!(move_effect(&state, Action::Pass, &Symbols).contains("9♠"));
    }

    #[test]
    fn a_card_says_whether_it_wins_the_trick() {
        let mut state = state();
        state.apply(Action::Order { alone: false });
        state.apply(Action::Discard("Td".parse().unwrap()));
        // East leads.
        assert_eq!(state.to_act(), Some(Seat::East));
        let right = move_effect(&state, Action::Play("Js".parse().unwrap()), &Symbols);
        assert_eq!(
            right,
            "leads J♠, the highest trump left: no card still out beats it"
        );
        let club = move_effect(&state, Action::Play("9c".parse().unwrap()), &Symbols);
        assert!(club.starts_with("leads 9♣ without the highest ♣"), "{club}");
        state.apply(Action::Play("9c".parse().unwrap()));
        // South holds no club: it throws off, and cannot win.
        let thrown = move_effect(&state, Action::Play("Qd".parse().unwrap()), &Symbols);
        assert_eq!(thrown, "cannot win the trick, throwing off Q♦");
        let last_heart = move_effect(&state, Action::Play("9h".parse().unwrap()), &Symbols);
        assert_eq!(
            last_heart,
            "cannot win the trick, throwing off 9♥ and leaving you void in ♥"
        );
        state.apply(Action::Play("Qd".parse().unwrap()));
        // West follows with the ace: over the nine, but North may trump.
        let ace = move_effect(&state, Action::Play("Ac".parse().unwrap()), &Symbols);
        assert_eq!(
            ace,
            "takes the lead in the trick for now, over your partner's winning card"
        );
        state.apply(Action::Play("Ac".parse().unwrap()));
        // North, the dealer, picked up the nine of trump and plays last.
        let trumped = move_effect(&state, Action::Play("9s".parse().unwrap()), &Symbols);
        assert_eq!(trumped, "trumps in and wins the trick");
    }

    #[test]
    fn a_discard_says_whether_it_empties_a_suit() {
        let mut state = state();
        state.apply(Action::Order { alone: false });
        let said = move_effect(&state, Action::Discard("Th".parse().unwrap()), &Symbols);
        assert_eq!(said, "discards 10♥, keeping your stronger cards");
        let void = move_effect(&state, Action::Discard("Td".parse().unwrap()), &Symbols);
        assert_eq!(
            void,
            "discards 10♦, leaving you void in ♦ so that you can trump it"
        );
    }
}
