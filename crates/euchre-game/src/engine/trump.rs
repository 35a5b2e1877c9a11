//! Trump-dependent card properties, precomputed at compile time so that
//! following suit and finding a trick's winner are table lookups.

use crate::engine::card::{Card, CardSet, Rank, Suit};

/// Which suit a card belongs to once trump is known: the left bower (the
/// jack of trump's colour) counts as trump.
#[inline]
pub fn effective_suit(card: Card, trump: Suit) -> Suit {
    TABLES.effective_suit[trump.index()][card.index()]
}

/// Every card whose effective suit is `suit` when `trump` is trump.
#[inline]
pub fn cards_of_suit(suit: Suit, trump: Suit) -> CardSet {
    TABLES.suit_cards[trump.index()][suit.index()]
}

/// A card's strength in a trick led in `led`: trumps beat everything (right
/// bower, left bower, A, K, Q, 10, 9), then cards of the led suit by rank,
/// and any other card is worth 0 and cannot win.
#[inline]
pub fn trick_strength(card: Card, trump: Suit, led: Suit) -> u8 {
    let tables = &TABLES;
    let suit = tables.effective_suit[trump.index()][card.index()];
    if suit as u8 == trump as u8 {
        16 + tables.trump_order[trump.index()][card.index()]
    } else if suit as u8 == led as u8 {
        1 + card.rank() as u8
    } else {
        0
    }
}

/// 0 (the nine) to 6 (the right bower) for trumps.
#[inline]
pub fn trump_order(card: Card, trump: Suit) -> u8 {
    TABLES.trump_order[trump.index()][card.index()]
}

struct Tables {
    effective_suit: [[Suit; 24]; 4],
    suit_cards: [[CardSet; 4]; 4],
    trump_order: [[u8; 24]; 4],
}

static TABLES: Tables = build_tables();

const fn build_tables() -> Tables {
    let mut tables = Tables {
        effective_suit: [[Suit::Clubs; 24]; 4],
        suit_cards: [[CardSet::EMPTY; 4]; 4],
        trump_order: [[0; 24]; 4],
    };
    let mut trump_index = 0;
    while trump_index < 4 {
        let trump = Suit::from_index(trump_index as u8);
        let left_bower = Card::new(trump.same_colour(), Rank::Jack);
        let right_bower = Card::new(trump, Rank::Jack);
        let mut index = 0;
        while index < 24 {
            let card = Card::ALL[index];
            let suit = if card.index() == left_bower.index() {
                trump
            } else {
                card.suit()
            };
            tables.effective_suit[trump_index][index] = suit;
            let set = tables.suit_cards[trump_index][suit.index()];
            tables.suit_cards[trump_index][suit.index()] = set.with(card);
            tables.trump_order[trump_index][index] = if card.index() == right_bower.index() {
                6
            } else if card.index() == left_bower.index() {
                5
            } else if suit as u8 == trump as u8 {
                // 9, 10, Q, K, A -> 0, 1, 2, 3, 4 (the jack is the right bower).
                match card.rank() {
                    Rank::Nine => 0,
                    Rank::Ten => 1,
                    Rank::Queen => 2,
                    Rank::King => 3,
                    _ => 4,
                }
            } else {
                0
            };
            index += 1;
        }
        trump_index += 1;
    }
    tables
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(text: &str) -> Card {
        text.parse().unwrap()
    }

    #[test]
    fn left_bower_is_trump() {
        assert_eq!(effective_suit(card("Jd"), Suit::Hearts), Suit::Hearts);
        assert_eq!(effective_suit(card("Jd"), Suit::Diamonds), Suit::Diamonds);
        assert_eq!(effective_suit(card("Jd"), Suit::Clubs), Suit::Diamonds);
        assert_eq!(cards_of_suit(Suit::Hearts, Suit::Hearts).len(), 7);
        assert_eq!(cards_of_suit(Suit::Diamonds, Suit::Hearts).len(), 5);
        assert_eq!(cards_of_suit(Suit::Clubs, Suit::Hearts).len(), 6);
    }

    #[test]
    fn trump_order_is_right_left_a_k_q_t_9() {
        let order = ["Jh", "Jd", "Ah", "Kh", "Qh", "Th", "9h"];
        for pair in order.windows(2) {
            let (high, low) = (card(pair[0]), card(pair[1]));
            assert!(
                trick_strength(high, Suit::Hearts, Suit::Clubs)
                    > trick_strength(low, Suit::Hearts, Suit::Clubs),
                "{high} should beat {low}"
            );
        }
        // The lowest trump beats the ace of the led suit; an off-suit ace is worthless.
        assert!(
            trick_strength(card("9h"), Suit::Hearts, Suit::Clubs)
                > trick_strength(card("Ac"), Suit::Hearts, Suit::Clubs)
        );
        assert_eq!(trick_strength(card("As"), Suit::Hearts, Suit::Clubs), 0);
        // Off trump, the jack ranks between ten and queen.
        assert!(
            trick_strength(card("Jc"), Suit::Hearts, Suit::Clubs)
                > trick_strength(card("Tc"), Suit::Hearts, Suit::Clubs)
        );
        assert!(
            trick_strength(card("Jc"), Suit::Hearts, Suit::Clubs)
                < trick_strength(card("Qc"), Suit::Hearts, Suit::Clubs)
        );
    }
}
