//! Cards as `u8` indices and hands as 24-bit masks, so that the hot path is
//! bit arithmetic with no allocation.

use std::fmt;
use std::str::FromStr;

use crate::engine::error::NotationError;

/// The four suits. The discriminants put the two suits of one colour at `s`
/// and `3 - s` (clubs/spades, diamonds/hearts), which makes the left bower's
/// suit a subtraction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Suit {
    Clubs = 0,
    Diamonds = 1,
    Hearts = 2,
    Spades = 3,
}

impl Suit {
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];

    #[inline]
    pub const fn from_index(index: u8) -> Suit {
        match index & 3 {
            0 => Suit::Clubs,
            1 => Suit::Diamonds,
            2 => Suit::Hearts,
            _ => Suit::Spades,
        }
    }

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The other suit of the same colour: its jack is the left bower when
    /// this suit is trump.
    #[inline]
    pub const fn same_colour(self) -> Suit {
        Suit::from_index(3 - self as u8)
    }

    pub const fn letter(self) -> char {
        match self {
            Suit::Clubs => 'c',
            Suit::Diamonds => 'd',
            Suit::Hearts => 'h',
            Suit::Spades => 's',
        }
    }

    pub const fn symbol(self) -> char {
        match self {
            Suit::Clubs => '♣',
            Suit::Diamonds => '♦',
            Suit::Hearts => '♥',
            Suit::Spades => '♠',
        }
    }
}

impl fmt::Display for Suit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

impl FromStr for Suit {
    type Err = NotationError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.to_ascii_lowercase().as_str() {
            "c" => Ok(Suit::Clubs),
            "d" => Ok(Suit::Diamonds),
            "h" => Ok(Suit::Hearts),
            "s" => Ok(Suit::Spades),
            _ => Err(NotationError::BadSuit(text.to_owned())),
        }
    }
}

/// Ranks 9 through ace, in natural (non-trump) order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Rank {
    Nine = 0,
    Ten = 1,
    Jack = 2,
    Queen = 3,
    King = 4,
    Ace = 5,
}

impl Rank {
    pub const ALL: [Rank; 6] = [
        Rank::Nine,
        Rank::Ten,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
        Rank::Ace,
    ];

    pub const fn letter(self) -> char {
        match self {
            Rank::Nine => '9',
            Rank::Ten => 'T',
            Rank::Jack => 'J',
            Rank::Queen => 'Q',
            Rank::King => 'K',
            Rank::Ace => 'A',
        }
    }

    /// The rank as players write it: `10` for the ten, the letter for the
    /// rest.
    pub const fn word(self) -> &'static str {
        match self {
            Rank::Nine => "9",
            Rank::Ten => "10",
            Rank::Jack => "J",
            Rank::Queen => "Q",
            Rank::King => "K",
            Rank::Ace => "A",
        }
    }

    pub fn from_letter(letter: char) -> Option<Rank> {
        Some(match letter.to_ascii_uppercase() {
            '9' => Rank::Nine,
            'T' => Rank::Ten,
            'J' => Rank::Jack,
            'Q' => Rank::Queen,
            'K' => Rank::King,
            'A' => Rank::Ace,
            _ => return None,
        })
    }
}

/// One of the 24 cards, as `suit * 6 + rank`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct Card(u8);

impl Card {
    pub const COUNT: usize = 24;

    /// Every card, in index order.
    pub const ALL: [Card; 24] = {
        let mut cards = [Card(0); 24];
        let mut index = 0;
        while index < 24 {
            cards[index] = Card(index as u8);
            index += 1;
        }
        cards
    };

    #[inline]
    pub const fn new(suit: Suit, rank: Rank) -> Card {
        Card(suit as u8 * 6 + rank as u8)
    }

    /// `None` for indices outside `0..24`.
    #[inline]
    pub const fn from_index(index: u8) -> Option<Card> {
        if (index as usize) < Card::COUNT {
            Some(Card(index))
        } else {
            None
        }
    }

    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    #[inline]
    pub const fn suit(self) -> Suit {
        Suit::from_index(self.0 / 6)
    }

    #[inline]
    pub const fn rank(self) -> Rank {
        match self.0 % 6 {
            0 => Rank::Nine,
            1 => Rank::Ten,
            2 => Rank::Jack,
            3 => Rank::Queen,
            4 => Rank::King,
            _ => Rank::Ace,
        }
    }

    pub fn all() -> impl Iterator<Item = Card> {
        Card::ALL.into_iter()
    }

    /// Renders as players write it, `10♠`, for people (the notation,
    /// [`fmt::Display`], is `Ts`).
    pub fn pretty(self) -> String {
        format!("{}{}", self.rank().word(), self.suit().symbol())
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank().letter(), self.suit().letter())
    }
}

impl FromStr for Card {
    type Err = NotationError;

    /// Accepts `9c`, `Tc`, `jH`, ... in either case; `10` is accepted for ten.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || NotationError::BadCard(text.to_owned());
        let trimmed = text.trim();
        // The suit is the last character, which need not be one byte.
        let (suit_at, _) = trimmed.char_indices().last().ok_or_else(bad)?;
        let (rank_text, suit_text) = trimmed.split_at(suit_at);
        let rank = match rank_text {
            "10" => Rank::Ten,
            _ => {
                let mut chars = rank_text.chars();
                match (chars.next(), chars.next()) {
                    (Some(letter), None) => Rank::from_letter(letter).ok_or_else(bad)?,
                    _ => return Err(bad()),
                }
            }
        };
        let suit: Suit = suit_text.parse().map_err(|_| bad())?;
        Ok(Card::new(suit, rank))
    }
}

/// A set of cards as a 24-bit mask (bit `i` is card `i`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct CardSet(u32);

impl CardSet {
    pub const EMPTY: CardSet = CardSet(0);
    pub const FULL_DECK: CardSet = CardSet((1 << 24) - 1);

    #[inline]
    pub const fn from_bits(bits: u32) -> CardSet {
        CardSet(bits & Self::FULL_DECK.0)
    }

    #[inline]
    pub const fn bits(self) -> u32 {
        self.0
    }

    #[inline]
    pub const fn single(card: Card) -> CardSet {
        CardSet(1 << card.0)
    }

    /// All six cards printed with this suit (not accounting for bowers).
    #[inline]
    pub const fn printed_suit(suit: Suit) -> CardSet {
        CardSet(0x3f << (suit as u32 * 6))
    }

    #[inline]
    pub const fn contains(self, card: Card) -> bool {
        self.0 & (1 << card.0) != 0
    }

    #[inline]
    pub const fn with(self, card: Card) -> CardSet {
        CardSet(self.0 | 1 << card.0)
    }

    #[inline]
    pub const fn without(self, card: Card) -> CardSet {
        CardSet(self.0 & !(1 << card.0))
    }

    #[inline]
    pub const fn union(self, other: CardSet) -> CardSet {
        CardSet(self.0 | other.0)
    }

    #[inline]
    pub const fn intersection(self, other: CardSet) -> CardSet {
        CardSet(self.0 & other.0)
    }

    #[inline]
    pub const fn minus(self, other: CardSet) -> CardSet {
        CardSet(self.0 & !other.0)
    }

    #[inline]
    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The six-bit rank mask of one printed suit.
    #[inline]
    pub const fn suit_ranks(self, suit: Suit) -> u32 {
        (self.0 >> (suit as u32 * 6)) & 0x3f
    }

    /// Cards in ascending index order.
    #[inline]
    pub fn iter(self) -> CardSetIter {
        CardSetIter(self.0)
    }
}

impl FromIterator<Card> for CardSet {
    fn from_iter<I: IntoIterator<Item = Card>>(cards: I) -> Self {
        cards.into_iter().fold(CardSet::EMPTY, CardSet::with)
    }
}

impl fmt::Display for CardSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (position, card) in self.iter().enumerate() {
            if position > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{card}")?;
        }
        Ok(())
    }
}

impl FromStr for CardSet {
    type Err = NotationError;

    /// Space-separated cards; a repeated card is an error.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut set = CardSet::EMPTY;
        for word in text.split_whitespace() {
            let card: Card = word.parse()?;
            if set.contains(card) {
                return Err(NotationError::DuplicateCard(card));
            }
            set = set.with(card);
        }
        Ok(set)
    }
}

/// Iterates the cards of a [`CardSet`] without allocating.
#[derive(Clone, Debug)]
pub struct CardSetIter(u32);

impl Iterator for CardSetIter {
    type Item = Card;

    #[inline]
    fn next(&mut self) -> Option<Card> {
        if self.0 == 0 {
            return None;
        }
        let index = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(Card(index))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let count = self.0.count_ones() as usize;
        (count, Some(count))
    }
}

impl ExactSizeIterator for CardSetIter {}

/// All `k`-card subsets of `universe`, in increasing mask order, by Gosper's
/// hack over the compressed positions of `universe`. Used by enumerators
/// that must walk hands without materialising them.
pub fn subsets(universe: CardSet, k: u32) -> impl Iterator<Item = CardSet> {
    let positions: Vec<u8> = universe.iter().map(|card| card.0).collect();
    let n = positions.len() as u32;
    let mut combo: u64 = if k == 0 { 0 } else { (1u64 << k) - 1 };
    let limit: u64 = 1u64 << n;
    let mut done = k > n;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let mut set = 0u32;
        let mut rest = combo;
        while rest != 0 {
            set |= 1 << positions[rest.trailing_zeros() as usize];
            rest &= rest - 1;
        }
        if combo == 0 {
            done = true;
        } else {
            let lowest = combo & combo.wrapping_neg();
            let ripple = combo + lowest;
            combo = (((ripple ^ combo) >> 2) / lowest) | ripple;
            if combo >= limit {
                done = true;
            }
        }
        Some(CardSet(set))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the fuzzer (`crates/trainer/tests/fuzz-corpus/`): a card
    /// whose last character is more than one byte panicked the parser,
    /// and with it `trainer act`, `trainer replay` and the bot API.
    #[test]
    fn a_card_ending_in_a_multibyte_character_is_an_error_not_a_panic() {
        for text in ["Tc\u{7bd}", "\u{739}", "QsEC\u{5c4}", "\u{e9}", "9\u{2663}"] {
            assert!(text.parse::<Card>().is_err(), "{text}");
        }
    }

    #[test]
    fn notation_round_trips() {
        let text = "9c Tc Jc Qc Kc Ac";
        let set: CardSet = text.parse().unwrap();
        assert_eq!(set.len(), 6);
        assert_eq!(set.to_string(), text);
        let lower: CardSet = "9C tc jC qc kc AC".parse().unwrap();
        assert_eq!(lower, set);
        assert_eq!(
            "10h".parse::<Card>().unwrap(),
            Card::new(Suit::Hearts, Rank::Ten)
        );
    }

    #[test]
    fn bad_notation_is_rejected() {
        for bad in ["", "x", "1c", "Jx", "Jhh", "AAh"] {
            assert!(bad.parse::<Card>().is_err(), "{bad:?} parsed");
        }
        assert!(matches!(
            "Jh Jh".parse::<CardSet>(),
            Err(NotationError::DuplicateCard(_))
        ));
    }

    #[test]
    fn subsets_count_binomials() {
        assert_eq!(subsets(CardSet::FULL_DECK, 5).count(), 42_504);
        let without_one = CardSet::FULL_DECK.without(Card::new(Suit::Hearts, Rank::Jack));
        let hands: Vec<CardSet> = subsets(without_one, 5).collect();
        assert_eq!(hands.len(), 33_649);
        assert!(
            hands
                .iter()
                .all(|hand| hand.len() == 5 && hand.minus(without_one).is_empty())
        );
        assert_eq!(subsets(CardSet::FULL_DECK, 0).count(), 1);
        assert_eq!(
            subsets(CardSet::single(Card::new(Suit::Clubs, Rank::Nine)), 2).count(),
            0
        );
    }
}
