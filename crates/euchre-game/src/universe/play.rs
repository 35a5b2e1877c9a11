//! Streams the universe of rank-compressed play keys, for the perfect hash
//! of the mmap store and for `trainer enumerate`.
//!
//! The universe is grouped into [`PlayShape`]s: everything a key holds
//! except *where* in each suit the actor's cards and the winning card sit.
//! Those positions are free: dead cards carry no rank in the key, so any
//! placement of the actor's cards among a suit's live cards is reached by
//! some choice of which cards died. Whether a shape can occur at all is
//! decided from counts alone, by [`PlayShape::is_possible`].
//!
//! **A superset, on purpose.** `is_possible` checks conditions every reached
//! key satisfies: the card counts of the trick and hand, who led the
//! current trick and so which side won the last one, who can be winning the
//! trick and with which suit. It does not replay follow-suit history, which
//! the key forgets; a few keys that pass (a side shown void in a suit while
//! too many of that suit are still out, for example) are never reached.
//! A superset costs only unused slots in the mmap file; a missing key
//! would stop training. The tests check that random play never reaches a
//! key outside the universe.

use crate::engine::rules::Rules;
use crate::keys::InfoKey;
use crate::keys::play::{Label, PlayAbstraction, PlayKeyParts, SLOT_SIZES, SuitLabels, TRUMP_SLOT};

/// What the actor knows of the contract besides trump.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PlayContext {
    pub we_made_trump: bool,
    pub maker_alone: bool,
    pub defender_alone: bool,
    /// The maker's seat after the actor, when the abstraction keeps it.
    pub maker_offset: Option<u8>,
}

/// Seats relative to the actor, in playing order.
const ACTOR: usize = 0;
const PARTNER: usize = 2;

impl PlayContext {
    /// Every context the rules allow, in a fixed order.
    pub fn all(rules: Rules, abstraction: PlayAbstraction) -> Vec<PlayContext> {
        let offsets: &[Option<u8>] = match abstraction {
            PlayAbstraction::Plain => &[None],
            PlayAbstraction::MakerSeat => &[Some(0), Some(1), Some(2), Some(3)],
            PlayAbstraction::TrumpVoids => &[None],
        };
        let mut contexts = Vec::new();
        for we_made_trump in [true, false] {
            for maker_alone in [false, true] {
                for defender_alone in [false, true] {
                    for &maker_offset in offsets {
                        if maker_offset.is_some_and(|offset| (offset % 2 == 0) != we_made_trump) {
                            continue;
                        }
                        let context = PlayContext {
                            we_made_trump,
                            maker_alone,
                            defender_alone,
                            maker_offset,
                        };
                        let allowed = !defender_alone || (maker_alone && rules.lone_defender);
                        if allowed && !context.seatings().is_empty() {
                            contexts.push(context);
                        }
                    }
                }
            }
        }
        contexts
    }

    /// Players in each trick.
    pub fn players(self) -> u8 {
        4 - u8::from(self.maker_alone) - u8::from(self.defender_alone)
    }

    /// Which seats (relative to the actor: 0 actor, 1 left, 2 partner,
    /// 3 right) play, for each seating the context allows. The key does not
    /// say which seat made trump, so every one consistent with it counts.
    fn seatings(self) -> Vec<[bool; 4]> {
        let makers: Vec<usize> = match self.maker_offset {
            Some(offset) => vec![usize::from(offset)],
            None if self.we_made_trump => vec![0, 2],
            None => vec![1, 3],
        };
        let mut seatings = Vec::new();
        for maker in makers {
            let defenders: &[Option<usize>] = if self.defender_alone {
                &[Some((maker + 1) % 4), Some((maker + 3) % 4)]
            } else {
                &[None]
            };
            for &defender in defenders {
                let mut active = [true; 4];
                if self.maker_alone {
                    active[(maker + 2) % 4] = false;
                }
                if let Some(defender) = defender {
                    active[(defender + 2) % 4] = false;
                }
                if active[ACTOR] && !seatings.contains(&active) {
                    seatings.push(active);
                }
            }
        }
        seatings
    }
}

/// The current trick as the key sees it, once someone has led.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TrickSoFar {
    pub led_slot: u8,
    pub winning_slot: u8,
    pub partner_winning: bool,
}

/// A class of play keys that differ only in where the actor's cards and
/// the winning card sit among each suit's live cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PlayShape {
    pub context: PlayContext,
    pub tricks_ours: u8,
    pub tricks_theirs: u8,
    /// Cards of the current trick played before the actor.
    pub played_in_trick: u8,
    pub trick: Option<TrickSoFar>,
    /// Dead cards per suit slot.
    pub dead: [u8; 4],
    /// The seats shown void in trump (bit `offset - 1`), when the
    /// abstraction keeps them.
    pub trump_voids: Option<u8>,
}

/// Which keys of the universe are wanted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayKeyFilter {
    /// Decisions with fewer legal actions are left out; the solver stores
    /// only decisions with a choice (2), `trainer enumerate` counts all (1).
    pub min_legal: u8,
    /// Only decisions taken before this many cards are played (`play-N`).
    pub cards_before: Option<u32>,
    pub abstraction: PlayAbstraction,
}

impl PlayKeyFilter {
    /// The keys the solver stores for a phase whose play ends after
    /// `cards_before` cards (`None`: the whole hand).
    pub fn stored(cards_before: Option<u32>) -> PlayKeyFilter {
        PlayKeyFilter {
            min_legal: 2,
            cards_before,
            abstraction: PlayAbstraction::Plain,
        }
    }
}

impl PlayShape {
    pub fn tricks_done(&self) -> u8 {
        self.tricks_ours + self.tricks_theirs
    }

    /// Whether the current trick was led with trump.
    fn trump_led(&self) -> bool {
        self.trick
            .is_some_and(|trick| trick.led_slot as usize == TRUMP_SLOT)
    }

    /// Cards played in the hand before the actor's decision.
    pub fn cards_played(&self) -> u32 {
        u32::from(self.context.players()) * u32::from(self.tricks_done())
            + u32::from(self.played_in_trick)
    }

    /// Cards the actor holds.
    pub fn mine(&self) -> u8 {
        5 - self.tricks_done()
    }

    fn live(&self) -> [u8; 4] {
        std::array::from_fn(|slot| SLOT_SIZES[slot] - self.dead[slot])
    }

    /// Whether some deal and some legal play reach a key of this shape, as
    /// far as counts can tell (see the module docs).
    pub fn is_possible(&self) -> bool {
        let players = self.context.players();
        let tricks = self.tricks_done();
        let leading = self.played_in_trick == 0;
        if tricks > 4 || self.played_in_trick >= players || leading != self.trick.is_none() {
            return false;
        }
        if self.dead.iter().zip(SLOT_SIZES).any(|(&d, size)| d > size) {
            return false;
        }
        let dead_total: u32 = self.dead.iter().map(|&d| u32::from(d)).sum();
        let winning = u32::from(!leading);
        if dead_total + winning != self.cards_played() {
            return false;
        }
        let live_total = 24 - dead_total;
        if live_total < u32::from(self.mine()) + winning {
            return false;
        }
        if let Some(trick) = self.trick {
            let live = self.live();
            let winner_suit_ok =
                trick.winning_slot == trick.led_slot || trick.winning_slot as usize == TRUMP_SLOT;
            if !winner_suit_ok || live[trick.winning_slot as usize] == 0 || trick.led_slot > 3 {
                return false;
            }
        }
        // A void in trump shows only when trump is led: then a trump has
        // died, or leads the trick still.
        if self.trump_voids.is_some_and(|voids| voids != 0)
            && self.dead[TRUMP_SLOT] == 0
            && !self.trump_led()
        {
            return false;
        }
        self.context
            .seatings()
            .iter()
            .any(|active| self.fits_seating(active))
    }

    /// Whether one seating explains the trick so far and the trick count.
    fn fits_seating(&self, active: &[bool; 4]) -> bool {
        // The seats that played to this trick, nearest first: right, partner, left.
        let before: Vec<usize> = [3, 2, 1]
            .into_iter()
            .filter(|&seat| active[seat])
            .take(self.played_in_trick as usize)
            .collect();
        if before.len() != self.played_in_trick as usize {
            return false;
        }
        let leader = before.last().copied().unwrap_or(ACTOR);
        // A seat shown void in trump plays, and in the first trick it
        // showed it in this one, which trump led.
        let voids = self.trump_voids.unwrap_or(0);
        let impossible_void = active.iter().enumerate().skip(1).any(|(seat, &plays)| {
            let shown = voids & (1 << (seat - 1)) != 0;
            let could_show =
                plays && (self.tricks_done() > 0 || (self.trump_led() && before.contains(&seat)));
            shown && !could_show
        });
        if impossible_void {
            return false;
        }
        // The leader won the last trick, so its side has one.
        if self.tricks_done() > 0 {
            let side_tricks = if leader % 2 == ACTOR % 2 {
                self.tricks_ours
            } else {
                self.tricks_theirs
            };
            if side_tricks == 0 {
                return false;
            }
        }
        let Some(trick) = self.trick else {
            return true;
        };
        before.iter().any(|&holder| {
            if (holder == PARTNER) != trick.partner_winning {
                return false;
            }
            if holder == leader {
                // The led card itself is winning.
                trick.winning_slot == trick.led_slot
            } else {
                // The led card was beaten, so it is dead.
                self.dead[trick.led_slot as usize] > 0
            }
        })
    }

    /// The shape of a view, if its counts describe a decision at all.
    pub fn of_view(view: &PlayKeyParts) -> Option<PlayShape> {
        let mut dead = [0u8; 4];
        for (slot, suit) in view.suits.iter().enumerate() {
            dead[slot] = SLOT_SIZES[slot].checked_sub(suit.len)?;
        }
        let context = PlayContext {
            we_made_trump: view.we_made_trump,
            maker_alone: view.maker_alone,
            defender_alone: view.defender_alone,
            maker_offset: view.maker_offset,
        };
        let tricks = view.tricks_ours.checked_add(view.tricks_theirs)?;
        let dead_total: u32 = dead.iter().map(|&d| u32::from(d)).sum();
        let before_trick = u32::from(context.players()) * u32::from(tricks);
        let played = (dead_total + u32::from(view.led.is_some())).checked_sub(before_trick)?;
        let trick = match view.led {
            None => None,
            Some(led_slot) => {
                let winning_slot = view.suits.iter().position(|suit| {
                    (0..suit.len).any(|position| suit.get(position) == Some(Label::Winning))
                })?;
                Some(TrickSoFar {
                    led_slot,
                    winning_slot: winning_slot as u8,
                    partner_winning: view.partner_winning,
                })
            }
        };
        if view.led.is_none() && view.partner_winning {
            return None;
        }
        Some(PlayShape {
            context,
            tricks_ours: view.tricks_ours,
            tricks_theirs: view.tricks_theirs,
            played_in_trick: u8::try_from(played).ok()?,
            trick,
            dead,
            trump_voids: view.trump_voids,
        })
    }

    /// Every canonical key of this shape that `filter` wants, each once.
    pub fn keys(self, filter: PlayKeyFilter) -> impl Iterator<Item = InfoKey> + Clone {
        self.views()
            .filter(move |view| {
                view.is_canonical()
                    && view.trump_voids_kept_as_keyed()
                    && view.legal_count() >= filter.min_legal
            })
            .map(|view| InfoKey(view.encode([2, 3])))
    }

    /// The number of keys [`Self::keys`] yields.
    pub fn count(self, filter: PlayKeyFilter) -> u64 {
        self.keys(filter).count() as u64
    }

    /// The number of canonical keys of this shape, and how many of them
    /// have at least two legal actions, in one pass.
    pub fn tally(self) -> (u64, u64) {
        self.views()
            .filter(|view| view.is_canonical() && view.trump_voids_kept_as_keyed())
            .fold((0, 0), |(all, choices), view| {
                (all + 1, choices + u64::from(view.legal_count() >= 2))
            })
    }

    /// Every view of this shape, with the off suits as they stand,
    /// canonical or not.
    pub fn views(self) -> impl Iterator<Item = PlayKeyParts> + Clone {
        let live = self.live();
        let base = PlayKeyParts {
            suits: [SuitLabels::default(); 4],
            led: self.trick.map(|trick| trick.led_slot),
            partner_winning: self.trick.is_some_and(|trick| trick.partner_winning),
            tricks_ours: self.tricks_ours,
            tricks_theirs: self.tricks_theirs,
            we_made_trump: self.context.we_made_trump,
            maker_alone: self.context.maker_alone,
            defender_alone: self.context.defender_alone,
            maker_offset: self.context.maker_offset,
            trump_voids: self.trump_voids,
        };
        let winning_places = match self.trick {
            Some(trick) => live[trick.winning_slot as usize],
            None => 1,
        };
        let mine = u32::from(self.mine());
        (0..winning_places).flat_map(move |winning_position| {
            let winner = self
                .trick
                .map(|trick| (trick.winning_slot as usize, winning_position));
            // The live places the actor's cards may take, as (slot, position).
            let mut places = [(0u8, 0u8); 24];
            let mut count = 0;
            for (slot, &length) in live.iter().enumerate() {
                for position in 0..length {
                    if winner != Some((slot, position)) {
                        places[count] = (slot as u8, position);
                        count += 1;
                    }
                }
            }
            combinations(count as u32, mine).map(move |mask| {
                let mut view = base;
                for (slot, &length) in live.iter().enumerate() {
                    let mut labels = SuitLabels::default();
                    for position in 0..length {
                        labels.push(if winner == Some((slot, position)) {
                            Label::Winning
                        } else {
                            Label::Unseen
                        });
                    }
                    view.suits[slot] = labels;
                }
                let mut rest = mask;
                while rest != 0 {
                    let (slot, position) = places[rest.trailing_zeros() as usize];
                    let labels = &mut view.suits[slot as usize];
                    // Unseen (2) to Mine (1).
                    labels.bits ^= 3 << (2 * position);
                    rest &= rest - 1;
                }
                view
            })
        })
    }
}

/// Every `k`-subset of `0..n` as a bit mask, by Gosper's hack.
fn combinations(n: u32, k: u32) -> impl Iterator<Item = u32> + Clone {
    let limit = 1u64 << n;
    let mut next = (k <= n).then_some((1u64 << k) - 1);
    std::iter::from_fn(move || {
        let combo = next?;
        next = if combo == 0 {
            None
        } else {
            let lowest = combo & combo.wrapping_neg();
            let ripple = combo + lowest;
            let following = (((ripple ^ combo) >> 2) / lowest) | ripple;
            (following < limit).then_some(following)
        };
        Some(combo as u32)
    })
}

/// Every possible shape under `rules` that can hold a key `filter` wants,
/// in a fixed order.
pub fn play_shapes(rules: Rules, filter: PlayKeyFilter) -> Vec<PlayShape> {
    let voids: Vec<Option<u8>> = if filter.abstraction == PlayAbstraction::TrumpVoids {
        (0..8).map(Some).collect()
    } else {
        vec![None]
    };
    let mut shapes = Vec::new();
    for context in PlayContext::all(rules, filter.abstraction) {
        for tricks in 0..=4u8 {
            for tricks_ours in 0..=tricks {
                for played_in_trick in 0..context.players() {
                    let template = PlayShape {
                        context,
                        tricks_ours,
                        tricks_theirs: tricks - tricks_ours,
                        played_in_trick,
                        trick: None,
                        dead: [0; 4],
                        trump_voids: None,
                    };
                    if filter
                        .cards_before
                        .is_some_and(|cards| template.cards_played() >= cards)
                    {
                        continue;
                    }
                    for &trump_voids in &voids {
                        push_shapes(
                            PlayShape {
                                trump_voids,
                                ..template
                            },
                            &mut shapes,
                        );
                    }
                }
            }
        }
    }
    shapes
}

/// The possible shapes of one template, over dead counts and tricks so far.
fn push_shapes(template: PlayShape, shapes: &mut Vec<PlayShape>) {
    let dead_total = template.cards_played() - u32::from(template.played_in_trick > 0);
    let tricks: Vec<Option<TrickSoFar>> = if template.played_in_trick == 0 {
        vec![None]
    } else {
        let mut tricks = Vec::new();
        for led_slot in 0..4u8 {
            for winning_slot in [led_slot, TRUMP_SLOT as u8] {
                for partner_winning in [false, true] {
                    let trick = Some(TrickSoFar {
                        led_slot,
                        winning_slot,
                        partner_winning,
                    });
                    if !tricks.contains(&trick) {
                        tricks.push(trick);
                    }
                }
            }
        }
        tricks
    };
    for d0 in 0..=SLOT_SIZES[0] {
        for d1 in 0..=SLOT_SIZES[1] {
            for d2 in 0..=SLOT_SIZES[2] {
                for d3 in 0..=SLOT_SIZES[3] {
                    if u32::from(d0 + d1 + d2 + d3) != dead_total {
                        continue;
                    }
                    for &trick in &tricks {
                        let shape = PlayShape {
                            dead: [d0, d1, d2, d3],
                            trick,
                            ..template
                        };
                        if shape.is_possible() {
                            shapes.push(shape);
                        }
                    }
                }
            }
        }
    }
}

/// Whether `key` belongs to the universe `filter` describes: what the mmap
/// store's perfect hash was built over.
pub fn contains(key: InfoKey, rules: Rules, filter: PlayKeyFilter) -> bool {
    let Some(view) = PlayKeyParts::decode(key) else {
        return false;
    };
    let Some(shape) = PlayShape::of_view(&view) else {
        return false;
    };
    let labels_fit = view.label_count(Label::Mine) == shape.mine()
        && view.label_count(Label::Winning) == u8::from(shape.trick.is_some());
    let voids_kept =
        shape.trump_voids.is_some() == (filter.abstraction == PlayAbstraction::TrumpVoids);
    labels_fit
        && voids_kept
        && view.trump_voids_kept_as_keyed()
        && view.is_canonical()
        && view.legal_count() >= filter.min_legal
        && filter
            .cards_before
            .is_none_or(|cards| shape.cards_played() < cards)
        && PlayContext::all(rules, filter.abstraction).contains(&shape.context)
        && shape.is_possible()
}
