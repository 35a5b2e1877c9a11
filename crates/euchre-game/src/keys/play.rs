//! The rank-compressed card-play key.
//!
//! Perfect recall over card play has about 5.6e23 infostates; this key has
//! about 7.7e7. It keeps what the unordered-set key knows about the rest of
//! the hand, and drops what a player can rarely use.
//!
//! **Kept.** Once trump is set the suits are *trump* (seven cards, both
//! bowers), *next* (trump's colour, five cards) and two *off* suits (six
//! each). For each suit, its live cards from strongest down, each labelled
//! *mine*, *unseen* or *winning the current trick*. A card is dead once it
//! sits in a completed trick, or in the current trick without winning it:
//! it can never take a trick again. Then the led suit, which side is
//! winning the trick, tricks won by each side, whether the actor's side
//! made trump, and who is alone. How far into the trick play is, and so who
//! plays after the actor, follows from the count of live cards.
//!
//! **Lost.** Which card each dead card was: two live cards with only dead
//! cards between them are the same card for every purpose that remains
//! (the rank equivalence of bridge double-dummy solvers). The order of
//! play and who played what, so also which players have shown a void. The
//! seat of the maker within a side, the upcard and the dealer's discard.
//!
//! **Symmetry.** The two off suits may swap; the key is the smaller of the
//! two encodings, and actions are ordered consistently with it.

use crate::engine::action::{Action, ActionList};
use crate::engine::card::{Card, CardSet, Rank, Suit};
use crate::engine::seat::Seat;
use crate::engine::state::{GameState, Stage};
use crate::keys::{Decision, InfoKey};

/// What the play key holds beyond the plain rank-compressed view, so that
/// enrichments can be counted and measured against each other.
///
/// A run trains under one abstraction and its exported policy records it,
/// so play keys a decision the way training did.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum PlayAbstraction {
    /// The brief's rank-compressed key.
    #[default]
    #[serde(rename = "plain")]
    Plain,
    /// Plus which seat made trump (the actor, partner, left or right), not
    /// only which side: a lone maker's position tells who plays last, and
    /// a partner's call says where the trumps are.
    #[serde(rename = "maker-seat")]
    MakerSeat,
    /// Plus which of the other seats have shown a void in trump (failed
    /// to follow a trump lead), while unseen trumps remain: who can still
    /// ruff or overtrump decides whether an off-suit winner cashes and
    /// whether to draw trumps, and PIMC reads it at every move.
    #[serde(rename = "trump-voids")]
    TrumpVoids,
}

impl PlayAbstraction {
    pub const ALL: [PlayAbstraction; 3] = [
        PlayAbstraction::Plain,
        PlayAbstraction::MakerSeat,
        PlayAbstraction::TrumpVoids,
    ];

    pub fn is_plain(&self) -> bool {
        *self == PlayAbstraction::Plain
    }
}

impl std::str::FromStr for PlayAbstraction {
    type Err = String;

    fn from_str(text: &str) -> Result<PlayAbstraction, String> {
        PlayAbstraction::ALL
            .into_iter()
            .find(|abstraction| abstraction.to_string() == text)
            .ok_or_else(|| {
                let names: Vec<String> =
                    PlayAbstraction::ALL.iter().map(|a| a.to_string()).collect();
                format!(
                    "unknown play abstraction {text:?}: expected one of {}",
                    names.join(", ")
                )
            })
    }
}

impl std::fmt::Display for PlayAbstraction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PlayAbstraction::Plain => "plain",
            PlayAbstraction::MakerSeat => "maker-seat",
            PlayAbstraction::TrumpVoids => "trump-voids",
        })
    }
}

/// The key's top byte for card-play decisions; bidding kinds use 1 to 4.
pub const PLAY_KIND: u8 = 5;

/// A live card's label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Label {
    Mine = 1,
    Unseen = 2,
    Winning = 3,
}

impl Label {
    pub fn from_bits(bits: u8) -> Option<Label> {
        match bits {
            1 => Some(Label::Mine),
            2 => Some(Label::Unseen),
            3 => Some(Label::Winning),
            _ => None,
        }
    }
}

/// One suit's live cards, strongest first, two bits per label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct SuitLabels {
    pub len: u8,
    pub bits: u16,
}

impl SuitLabels {
    pub fn push(&mut self, label: Label) {
        self.bits |= (label as u16) << (2 * self.len);
        self.len += 1;
    }

    pub fn get(&self, position: u8) -> Option<Label> {
        (position < self.len).then(|| Label::from_bits((self.bits >> (2 * position)) as u8 & 3))?
    }

    fn code(&self) -> u128 {
        u128::from(self.len) | u128::from(self.bits) << 3
    }
}

/// Suit slots in the key: trump, next, and the two off suits.
pub const TRUMP_SLOT: usize = 0;
pub const NEXT_SLOT: usize = 1;
/// Cards in each slot's suit once trump is set: trump gains the left bower
/// from next.
pub const SLOT_SIZES: [u8; 4] = [7, 5, 6, 6];
/// Every slot's cards in strength order (see [`by_strength`]).
const ALL_SLOTS: u32 = 0x3f3f_1f7f;

/// Everything the play key holds, before canonicalisation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PlayKeyParts {
    /// Indexed by slot; the off suits in the deal's suit order.
    pub suits: [SuitLabels; 4],
    /// The led suit's slot, `None` when the actor leads.
    pub led: Option<u8>,
    pub partner_winning: bool,
    pub tricks_ours: u8,
    pub tricks_theirs: u8,
    pub we_made_trump: bool,
    pub maker_alone: bool,
    pub defender_alone: bool,
    /// The maker's seat after the actor (0 actor, 1 left, 2 partner,
    /// 3 right), under [`PlayAbstraction::MakerSeat`] only.
    pub maker_offset: Option<u8>,
    /// Which seats have shown a void in trump, bit `offset - 1` for the
    /// seat `offset` places after the actor (left, partner, right), under
    /// [`PlayAbstraction::TrumpVoids`] only. Zero once no trump is unseen:
    /// then it tells the actor nothing, and keeping it would split keys.
    pub trump_voids: Option<u8>,
}

/// The four suits in slot order for a trump suit.
pub fn slot_suits(trump: Suit) -> [Suit; 4] {
    let next = trump.same_colour();
    let mut off = Suit::ALL.into_iter().filter(|&s| s != trump && s != next);
    let first = off.next().unwrap_or(trump);
    let second = off.next().unwrap_or(trump);
    [trump, next, first, second]
}

/// Each slot's cards strongest first, for each trump suit: the order never
/// changes within a hand, so the key builder walks it instead of sorting.
/// Slots shorter than seven cards are padded with their last card, which
/// the builder never reaches.
static STRONGEST_FIRST: [[[Card; 7]; 4]; 4] = strongest_first_tables();

const fn strongest_first_tables() -> [[[Card; 7]; 4]; 4] {
    use crate::engine::card::Rank::{Ace, Jack, King, Nine, Queen, Ten};
    /// `suit`'s cards in the order `ranks` lists them.
    const fn in_order(suit: Suit, ranks: [Rank; 7]) -> [Card; 7] {
        let mut cards = [Card::ALL[0]; 7];
        let mut index = 0;
        while index < 7 {
            cards[index] = Card::new(suit, ranks[index]);
            index += 1;
        }
        cards
    }
    // Plain suits rank A K Q J T 9; next has lost its jack to trump. The
    // trailing nines are padding.
    const PLAIN: [Rank; 7] = [Ace, King, Queen, Jack, Ten, Nine, Nine];
    const WITHOUT_JACK: [Rank; 7] = [Ace, King, Queen, Ten, Nine, Nine, Nine];
    let mut tables = [[[Card::ALL[0]; 7]; 4]; 4];
    let mut trump_index = 0;
    while trump_index < 4 {
        let trump = Suit::from_index(trump_index as u8);
        let next = trump.same_colour();
        // Right bower, left bower, then A K Q T 9 of trump.
        let mut trumps = in_order(trump, [Jack, Jack, Ace, King, Queen, Ten, Nine]);
        trumps[1] = Card::new(next, Jack);
        tables[trump_index][TRUMP_SLOT] = trumps;
        tables[trump_index][NEXT_SLOT] = in_order(next, WITHOUT_JACK);
        // The off suits in suit index order, as `slot_suits` lists them.
        let mut slot = 2;
        let mut suit_index = 0;
        while suit_index < 4 {
            let suit = Suit::from_index(suit_index as u8);
            if suit as u8 != trump as u8 && suit as u8 != next as u8 {
                tables[trump_index][slot] = in_order(suit, PLAIN);
                slot += 1;
            }
            suit_index += 1;
        }
        trump_index += 1;
    }
    tables
}

/// A card set in *strength order*: slot `s`'s cards at bits `8 s ..`, its
/// strongest card lowest. The key's labels are then a few table lookups on
/// each slot's byte instead of a walk over the deck; the walk's branches
/// on which cards are dead mispredicted at nearly every card, and building
/// keys was a quarter of training's time.
static BY_STRENGTH: [[[u32; 256]; 3]; 4] = by_strength_tables();

const fn by_strength_tables() -> [[[u32; 256]; 3]; 4] {
    let mut tables = [[[0u32; 256]; 3]; 4];
    let mut trump = 0;
    while trump < 4 {
        let mut slot = 0;
        while slot < 4 {
            let mut position = 0;
            while position < SLOT_SIZES[slot] as usize {
                let card = STRONGEST_FIRST[trump][slot][position].index();
                let (byte, bit) = (card / 8, card % 8);
                let mut value = 0;
                while value < 256 {
                    if value & (1 << bit) != 0 {
                        tables[trump][byte][value] |= 1 << (8 * slot + position);
                    }
                    value += 1;
                }
                position += 1;
            }
            slot += 1;
        }
        trump += 1;
    }
    tables
}

/// `cards` in strength order under the trump suit `trump_index`.
#[inline]
fn by_strength(trump_index: usize, cards: CardSet) -> u32 {
    let bits = cards.bits() as usize;
    let tables = &BY_STRENGTH[trump_index];
    tables[0][bits & 0xff] | tables[1][(bits >> 8) & 0xff] | tables[2][(bits >> 16) & 0xff]
}

/// `COMPACT[live][cards]`: the bits of `cards` at `live`'s set bits, packed
/// low in order (a 7-bit parallel extract).
static COMPACT: [[u8; 128]; 128] = compact_table();

const fn compact_table() -> [[u8; 128]; 128] {
    let mut table = [[0u8; 128]; 128];
    let mut live = 0;
    while live < 128 {
        let mut cards = 0;
        while cards < 128 {
            let (mut packed, mut out, mut bit) = (0u8, 0, 0);
            while bit < 7 {
                if live & (1 << bit) != 0 {
                    if cards & (1 << bit) != 0 {
                        packed |= 1 << out;
                    }
                    out += 1;
                }
                bit += 1;
            }
            table[live][cards] = packed;
            cards += 1;
        }
        live += 1;
    }
    table
}

/// `SPREAD[bits]`: bit `i` of `bits` moved to bit `2 i`, so two label
/// planes interleave into [`SuitLabels::bits`].
static SPREAD: [u16; 128] = spread_table();

const fn spread_table() -> [u16; 128] {
    let mut table = [0u16; 128];
    let mut bits = 0;
    while bits < 128 {
        let mut bit = 0;
        while bit < 7 {
            if bits & (1 << bit) != 0 {
                table[bits] |= 1 << (2 * bit);
            }
            bit += 1;
        }
        bits += 1;
    }
    table
}

/// One slot's labels from its live, mine and winning cards (each a 7-bit
/// mask in strength order). Mine is label 1, unseen 2 and winning 3, so
/// the low bit of a label is "mine or winning" and the high bit "not mine".
#[inline]
fn slot_labels(live: u8, mine: u8, winning: u8) -> SuitLabels {
    let compact = &COMPACT[usize::from(live)];
    let len = live.count_ones() as u8;
    let mine = compact[usize::from(mine & live)];
    let winning = compact[usize::from(winning & live)];
    let low = mine | winning;
    let high = !mine & ((1u8 << len) - 1);
    SuitLabels {
        len,
        bits: SPREAD[usize::from(low)] | SPREAD[usize::from(high)] << 1,
    }
}

/// Where a card sits: its slot and its position among that slot's live
/// cards, strongest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Place {
    slot: u8,
    position: u8,
}

/// The actor's playable cards and where each sits in the view.
#[derive(Debug, PartialEq, Eq)]
struct PlayablePlaces {
    places: [(Card, Place); 5],
    count: usize,
}

impl PlayablePlaces {
    const NONE: PlayablePlaces = PlayablePlaces {
        places: [(
            Card::ALL[0],
            Place {
                slot: 0,
                position: 0,
            },
        ); 5],
        count: 0,
    };
}

impl PlayKeyParts {
    /// The actor's view at a card-play decision, and where each of the
    /// actor's playable cards sits; `None` outside card play.
    fn build(
        state: &GameState,
        abstraction: PlayAbstraction,
    ) -> Option<(PlayKeyParts, PlayablePlaces)> {
        if state.stage() != Stage::Play {
            return None;
        }
        let actor = state.to_act()?;
        let contract = state.contract()?;
        let trump = contract.trump;
        let trick = state.trick();
        let winner: Option<Seat> = trick.winner(trump);
        let winning_card = winner.map(|seat| trick.cards[seat.index()]);
        let winning = winning_card.map_or(CardSet::EMPTY, CardSet::single);
        // Dead: every played card except the one winning the current trick.
        let dead = state.played().minus(winning);
        let suits = slot_suits(trump);
        let mut view = PlayKeyParts {
            suits: [SuitLabels::default(); 4],
            led: None,
            partner_winning: winner.is_some_and(|seat| seat == actor.partner()),
            tricks_ours: state.tricks_won(actor.team()),
            tricks_theirs: state.tricks_won(actor.team().other()),
            we_made_trump: contract.maker.team() == actor.team(),
            maker_alone: contract.alone,
            defender_alone: state.lone_defender().is_some(),
            maker_offset: (abstraction == PlayAbstraction::MakerSeat)
                .then(|| contract.maker.offset_from(actor)),
            trump_voids: None,
        };
        if trick.played_mask != 0 {
            view.led = suits.iter().position(|&s| s == trick.led).map(|i| i as u8);
        }
        let trump_index = trump.index();
        let live = !by_strength(trump_index, dead) & ALL_SLOTS;
        let mine = by_strength(trump_index, state.hand(actor));
        let winning = by_strength(trump_index, winning);
        for (slot, labels) in view.suits.iter_mut().enumerate() {
            let byte = |bits: u32| (bits >> (8 * slot)) as u8;
            *labels = slot_labels(byte(live), byte(mine), byte(winning));
        }
        if abstraction == PlayAbstraction::TrumpVoids {
            let unseen_trumps = live & !mine & !winning & 0x7f != 0;
            let mut voids = 0;
            if unseen_trumps {
                for offset in 1..4u8 {
                    let seat = Seat::from_index(actor as u8 + offset);
                    voids |= u8::from(state.shown_trump_void(seat)) << (offset - 1);
                }
            }
            view.trump_voids = Some(voids);
        }
        let mut places = PlayablePlaces::NONE.places;
        let mut count = 0;
        // Lowest bit first: slot by slot, strongest first within a slot.
        let mut playable = by_strength(trump_index, state.playable_cards());
        while playable != 0 && count < places.len() {
            let bit = playable.trailing_zeros();
            playable &= playable - 1;
            let (slot, rank) = (bit / 8, bit % 8);
            let stronger_live = (live >> (8 * slot)) & ((1 << rank) - 1);
            places[count] = (
                STRONGEST_FIRST[trump_index][slot as usize][rank as usize],
                Place {
                    slot: slot as u8,
                    position: stronger_live.count_ones() as u8,
                },
            );
            count += 1;
        }
        Some((view, PlayablePlaces { places, count }))
    }

    /// The actor's view at a card-play decision; `None` outside card play.
    pub fn of_state(state: &GameState) -> Option<PlayKeyParts> {
        PlayKeyParts::build(state, PlayAbstraction::Plain).map(|(view, _)| view)
    }

    /// The encoding with the off suits in the order `off_order` gives
    /// (`[2, 3]` as dealt, `[3, 2]` swapped).
    pub fn encode(&self, off_order: [usize; 2]) -> u128 {
        let order = [TRUMP_SLOT, NEXT_SLOT, off_order[0], off_order[1]];
        let mut code = 0u128;
        for (place, &slot) in order.iter().enumerate() {
            code |= self.suits[slot].code() << (17 * place);
        }
        let led = self.led.map_or(0, |slot| {
            order.iter().position(|&s| s == slot as usize).unwrap_or(0) as u128 + 1
        });
        code | led << 68
            | u128::from(self.partner_winning) << 71
            | u128::from(self.tricks_ours) << 72
            | u128::from(self.tricks_theirs) << 75
            | u128::from(self.we_made_trump) << 78
            | u128::from(self.maker_alone) << 79
            | u128::from(self.defender_alone) << 80
            | self
                .maker_offset
                .map_or(0, |offset| (1 | u128::from(offset & 3) << 1) << 81)
            | self
                .trump_voids
                .map_or(0, |voids| (1 | u128::from(voids & 7) << 1) << 84)
            | u128::from(PLAY_KIND) << 120
    }

    /// Reads back a key made by [`Self::encode`], in the key's own suit
    /// order; `None` for a key of another kind or with impossible fields.
    pub fn decode(key: InfoKey) -> Option<PlayKeyParts> {
        let code = key.0;
        if (code >> 120) as u8 != PLAY_KIND || code >> 88 & ((1u128 << 32) - 1) != 0 {
            return None;
        }
        let mut suits = [SuitLabels::default(); 4];
        for (slot, labels) in suits.iter_mut().enumerate() {
            let field = (code >> (17 * slot)) as u32 & 0x1_FFFF;
            let len = (field & 7) as u8;
            if len > SLOT_SIZES[slot] {
                return None;
            }
            for position in 0..len {
                labels.push(Label::from_bits((field >> (3 + 2 * position)) as u8 & 3)?);
            }
            if field >> (3 + 2 * len) != 0 {
                return None;
            }
        }
        let bits = |at: u32, width: u32| (code >> at) as u8 & ((1u8 << width) - 1);
        let led = match bits(68, 3) {
            0 => None,
            slot @ 1..=4 => Some(slot - 1),
            _ => return None,
        };
        Some(PlayKeyParts {
            suits,
            led,
            partner_winning: bits(71, 1) == 1,
            tricks_ours: bits(72, 3),
            tricks_theirs: bits(75, 3),
            we_made_trump: bits(78, 1) == 1,
            maker_alone: bits(79, 1) == 1,
            defender_alone: bits(80, 1) == 1,
            maker_offset: (bits(81, 1) == 1).then(|| bits(82, 2)),
            trump_voids: (bits(84, 1) == 1).then(|| bits(85, 3)),
        })
    }

    /// Whether this view, with its off suits as they stand, is the one its
    /// symmetry class is keyed by.
    pub fn is_canonical(&self) -> bool {
        self.encode([2, 3]) <= self.encode([3, 2])
    }

    /// Whether the trump voids are as [`PlayKeyParts`] keeps them: none
    /// marked once no trump is unseen.
    pub fn trump_voids_kept_as_keyed(&self) -> bool {
        let unseen_trumps = (0..self.suits[TRUMP_SLOT].len)
            .any(|p| self.suits[TRUMP_SLOT].get(p) == Some(Label::Unseen));
        self.trump_voids
            .is_none_or(|voids| voids == 0 || unseen_trumps)
    }

    /// How many cards of each label the view holds.
    pub fn label_count(&self, label: Label) -> u8 {
        self.suits
            .iter()
            .map(|suit| {
                (0..suit.len)
                    .filter(|&p| suit.get(p) == Some(label))
                    .count() as u8
            })
            .sum()
    }

    /// The number of legal plays: the actor's cards of the led suit if any,
    /// else all of them.
    pub fn legal_count(&self) -> u8 {
        let mine_in = |slot: usize| {
            let suit = &self.suits[slot];
            (0..suit.len)
                .filter(|&p| suit.get(p) == Some(Label::Mine))
                .count() as u8
        };
        match self.led.map(|slot| mine_in(slot as usize)) {
            Some(following) if following > 0 => following,
            _ => self.label_count(Label::Mine),
        }
    }

    /// The canonical key and the off-suit order that gives it.
    pub fn canonical(&self) -> (InfoKey, [usize; 2]) {
        let dealt = self.encode([2, 3]);
        let swapped = self.encode([3, 2]);
        if swapped < dealt {
            (InfoKey(swapped), [3, 2])
        } else {
            (InfoKey(dealt), [2, 3])
        }
    }
}

/// The card-play decision at `state`: the canonical key, and the playable
/// cards ordered by (slot, position) in the canonical suit order. `None`
/// outside card play.
pub fn play_decision(state: &GameState) -> Option<Decision> {
    play_decision_with(state, PlayAbstraction::Plain)
}

/// [`play_decision`] under an enriched abstraction.
pub fn play_decision_with(state: &GameState, abstraction: PlayAbstraction) -> Option<Decision> {
    let (view, PlayablePlaces { places, count }) = PlayKeyParts::build(state, abstraction)?;
    let (key, off_order) = view.canonical();
    // The places are already in (slot, position) order for the suits as
    // dealt; listing them slot by slot in the canonical order finishes it.
    let mut actions = ActionList::new();
    for slot in [TRUMP_SLOT, NEXT_SLOT, off_order[0], off_order[1]] {
        for &(card, place) in &places[..count] {
            if usize::from(place.slot) == slot {
                actions.push(Action::Play(card));
            }
        }
    }
    Some(Decision { key, actions })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::trump::{effective_suit, trump_order};

    /// The view as first written: a walk over each slot's cards, strongest
    /// first, asking of every card whether it is dead, winning or mine.
    /// Kept as the reference the table-driven builder must equal.
    fn build_by_walking(state: &GameState) -> Option<(PlayKeyParts, PlayablePlaces)> {
        let (mut view, _) = PlayKeyParts::build(state, PlayAbstraction::Plain)?;
        let trump = state.contract()?.trump;
        let actor = state.to_act()?;
        let trick = state.trick();
        let winning_card = trick.winner(trump).map(|seat| trick.cards[seat.index()]);
        let (hand, playable) = (state.hand(actor), state.playable_cards());
        let mut dead = state.played();
        if let Some(card) = winning_card {
            dead = dead.without(card);
        }
        let mut places = PlayablePlaces::NONE.places;
        let mut count = 0;
        view.suits = [SuitLabels::default(); 4];
        for (slot, strongest_first) in STRONGEST_FIRST[trump.index()].iter().enumerate() {
            let live = strongest_first[..usize::from(SLOT_SIZES[slot])]
                .iter()
                .filter(|&&card| !dead.contains(card));
            for (position, &card) in live.enumerate() {
                let label = if Some(card) == winning_card {
                    Label::Winning
                } else if hand.contains(card) {
                    Label::Mine
                } else {
                    Label::Unseen
                };
                view.suits[slot].push(label);
                if playable.contains(card) {
                    places[count] = (
                        card,
                        Place {
                            slot: slot as u8,
                            position: position as u8,
                        },
                    );
                    count += 1;
                }
            }
        }
        Some((view, PlayablePlaces { places, count }))
    }

    #[test]
    fn the_table_driven_view_equals_the_walk_over_the_deck() {
        use crate::engine::rules::Rules;
        use crate::engine::state::Deal;
        use rand::rngs::SmallRng;
        use rand::{RngExt, SeedableRng};

        let mut rng = SmallRng::seed_from_u64(7);
        let mut compared = 0;
        for hand in 0..3_000 {
            let rules = Rules {
                lone_defender: hand % 2 == 1,
                ..Rules::default()
            };
            let dealer = Seat::from_index(rng.random_range(0..4u8));
            let mut state = GameState::new(Deal::random(dealer, &mut rng), rules);
            while state.to_act().is_some() {
                if state.stage() == Stage::Play {
                    assert_eq!(
                        PlayKeyParts::build(&state, PlayAbstraction::Plain),
                        build_by_walking(&state),
                        "{state:?}"
                    );
                    compared += 1;
                }
                let legal = state.legal_actions();
                state.apply(legal[rng.random_range(0..legal.len())]);
            }
        }
        assert!(compared > 30_000, "only {compared} card plays compared");
    }

    /// The builder's fixed orders must be exactly the rules' suits and
    /// strengths, or keys would silently merge or split positions.
    #[test]
    fn strongest_first_tables_follow_the_rules() {
        for trump in Suit::ALL {
            for (slot, &suit) in slot_suits(trump).iter().enumerate() {
                let listed = &STRONGEST_FIRST[trump.index()][slot][..usize::from(SLOT_SIZES[slot])];
                let mut expected: Vec<Card> = Card::all()
                    .filter(|&card| effective_suit(card, trump) == suit)
                    .collect();
                let strength = |card: Card| {
                    if suit == trump {
                        trump_order(card, trump)
                    } else {
                        card.rank() as u8
                    }
                };
                expected.sort_by_key(|&card| std::cmp::Reverse(strength(card)));
                assert_eq!(listed, expected.as_slice(), "trump {trump:?}, slot {slot}");
            }
        }
    }
}
