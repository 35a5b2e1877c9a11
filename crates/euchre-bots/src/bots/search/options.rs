//! What a search is told besides its blueprint: the options a spec writes
//! after the number of worlds (`400,blend,trust=50,game`), and the ways the
//! other seats may finish an auction.

use std::fmt;
use std::time::Duration;

use euchre_game::engine::action::Action;
use euchre_game::engine::state::Stage;

use crate::policy_file::most_likely;
use crate::seen::Seen;

/// The weight an observed action gets is `trust × p + (1 − trust) / n`
/// for the blueprint's probability `p` among `n` choices; this is the
/// default trust, in percent.
pub const TRUST_PERCENT: u8 = 90;

/// A bid the blueprint gives at least this probability is played without
/// search when the bot searches its bids.
pub const CONFIDENT: f64 = 0.8;

/// One way a seat may finish the auction after a searched bid
/// ([`SearchOptions::continuations`]): the blueprint's bids, or biased
/// copies of them that bid on weaker or only on stronger hands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Continuation {
    /// The blueprint's most likely action.
    Blueprint,
    /// Bid (its most likely bid) wherever the blueprint bids at least
    /// [`Continuation::BOLD`] of the time: a bidder like PIMC, which orders
    /// more than the blueprint.
    Bolder,
    /// Bid only where the blueprint bids at least [`Continuation::WARY`] of
    /// the time.
    Warier,
}

impl Continuation {
    pub const ALL: [Continuation; 3] = [
        Continuation::Blueprint,
        Continuation::Bolder,
        Continuation::Warier,
    ];
    /// The blueprint's probability of bidding at or above which a bolder
    /// bidder bids.
    pub const BOLD: f64 = 0.25;
    /// The same for a warier bidder.
    pub const WARY: f64 = 0.75;

    /// The action this continuation takes among `actions`, given the
    /// blueprint's `probabilities` for them: the most likely, or, where
    /// passing is among them, the most likely bid when the blueprint's
    /// probability of bidding at all reaches this continuation's threshold.
    pub(super) fn choose(self, actions: &[Action], probabilities: &[f64]) -> Action {
        let most_likely_action = actions[most_likely(probabilities)];
        let threshold = match self {
            Continuation::Blueprint => return most_likely_action,
            Continuation::Bolder => Continuation::BOLD,
            Continuation::Warier => Continuation::WARY,
        };
        let Some(pass) = actions.iter().position(|&a| a == Action::Pass) else {
            return most_likely_action;
        };
        if 1.0 - probabilities[pass] < threshold {
            return Action::Pass;
        }
        let best_bid = (0..actions.len())
            .filter(|&i| i != pass)
            .max_by(|&a, &b| probabilities[a].total_cmp(&probabilities[b]));
        best_bid.map_or(most_likely_action, |i| actions[i])
    }
}

/// How each side finishes the auction after a searched bid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Styles {
    /// The searcher's partner (the searcher's own later bids are the
    /// blueprint's: its own search makes them).
    pub(super) partner: Continuation,
    pub(super) other_side: Continuation,
}

impl Styles {
    pub(super) const BLUEPRINT: Styles = Styles {
        partner: Continuation::Blueprint,
        other_side: Continuation::Blueprint,
    };
}

/// One action's points in one world for each pair of continuations,
/// `[partner][other side]`.
pub(super) type ByContinuation = [[i64; 3]; 3];

/// Who chooses the bot's bids and discard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BidsBy {
    /// The blueprint's most likely action.
    Blueprint,
    /// Weighted open-hand search over the blueprint's continuation, where
    /// the blueprint is not [`CONFIDENT`].
    Search,
    /// The same at every bid with a choice: a full-play table exports its
    /// fixed bids as their argmax, sure of every one, so only this searches
    /// its bids.
    SearchEvery,
}

/// How a searched world is valued after each candidate action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorldValues {
    /// Solved open-handed: every seat then plays perfectly, seeing all.
    OpenHand,
    /// Played out by the full-play table at every seat, each playing its
    /// most likely card, as `policy-argmax:` does.
    TablePlayout,
    /// Both, summed: a world's value is the open-hand points plus the
    /// playout's.
    Blend,
}

impl WorldValues {
    /// The word a spec uses for these values.
    pub fn word(self) -> &'static str {
        match self {
            WorldValues::OpenHand => "open-hand",
            WorldValues::TablePlayout => "playout",
            WorldValues::Blend => "blend",
        }
    }

    pub const ALL: [WorldValues; 3] = [
        WorldValues::OpenHand,
        WorldValues::TablePlayout,
        WorldValues::Blend,
    ];

    /// Whether a world's value includes its open-hand solve.
    pub(super) fn solves_open_hand(self) -> bool {
        self != WorldValues::TablePlayout
    }

    /// Whether a world's value includes the table's playout.
    pub(super) fn needs_table(self) -> bool {
        self != WorldValues::OpenHand
    }

    /// How many estimates of the same points a world's value sums.
    pub(super) fn sources(self) -> f64 {
        if self == WorldValues::Blend { 2.0 } else { 1.0 }
    }
}

/// Who plays the opening lead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lead {
    /// Searched over this many worlds.
    Searched(usize),
    /// The full-play table's most likely card, unsearched: measured level
    /// with a 400-world search of the lead, at no search's cost
    /// (`docs/experiments/opening-lead-worlds.md`).
    ByTable,
}

/// Everything a search is told besides its blueprint; written as a spec
/// writes it (`200`, `200,playout`, `400,blend,ms=50`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchOptions {
    /// Worlds drawn (after weighting) and valued per card play.
    pub worlds: usize,
    /// Who plays the opening lead, the first card of the hand: the one
    /// card play that wins the strongest bot a steady share of its margin
    /// (`docs/experiments/where-the-points-come-from.md`), made once a
    /// hand, when the most cards are hidden.
    pub lead: Lead,
    /// Worlds per searched bid or discard: a hand has one or two of them
    /// against a dozen card plays, and they decide more of its points.
    pub bid_worlds: usize,
    pub bids: BidsBy,
    pub values: WorldValues,
    /// How far the inference trusts the blueprint as a model of the other
    /// seats, in percent: 0 deals worlds as PIMC does, 100 rules out every
    /// world where a seat took an action the blueprint never takes.
    pub trust_percent: u8,
    /// Stop valuing worlds once a decision has taken this long (at least
    /// one world is always valued). A budgeted bot's choices depend on the
    /// machine's speed, so its matches do not repeat exactly.
    pub budget: Option<Duration>,
    /// Read the other seats' bids by the bidding blueprint a full-play
    /// table was trained under (its average strategy), not by the table's
    /// own bids: the table holds only the blueprint's most likely bid
    /// (probability 1), so a bid unlike it says nothing graded. With
    /// searched bids the same blueprint also says which of the bot's bids
    /// it is unsure of (those are searched) and how the auction goes on
    /// after each, so that bids on a table are searched as on a bidding
    /// blueprint, valued as [`WorldValues`] says.
    pub infer_bids: bool,
    /// Choose the actor's next card once per history it would have seen,
    /// not once per world (see the module docs); the other seats' cards in
    /// between come from the full-play table.
    pub ahead: bool,
    /// Value each searched bid with each side finishing the auction in the
    /// [`Continuation`] that suits it (see the module docs), not by the
    /// blueprint's bids alone.
    pub continuations: bool,
    /// Value each world's outcome by the chance of winning the game it
    /// leaves, from the score in view ([`crate::valuation::Valuation::Game`]), not by points;
    /// the blueprint's own bids and cards stay what it trained.
    pub game: bool,
    /// With [`Self::game`]: once either side is within two points of the
    /// target, search every bid, the blueprint's sure ones included. A bid
    /// the blueprint is sure of is sure for points; near the end of a game
    /// the chance of winning may ask for another (an order to stop the
    /// other side's last point, no loner when a make wins).
    pub endgame_bids: bool,
}

impl SearchOptions {
    /// `worlds` for every searched decision, bids by `bids`, open-hand
    /// values, the default trust and no time budget: what `search:` and
    /// `search-bids:` mean with no options.
    pub fn new(worlds: usize, bids: BidsBy) -> SearchOptions {
        SearchOptions {
            worlds,
            lead: Lead::Searched(worlds),
            bid_worlds: worlds,
            bids,
            values: WorldValues::OpenHand,
            trust_percent: TRUST_PERCENT,
            budget: None,
            infer_bids: false,
            ahead: false,
            continuations: false,
            game: false,
            endgame_bids: false,
        }
    }

    /// How many worlds the decision `seen` shows is searched over.
    pub(super) fn worlds_for(&self, seen: &Seen<'_>) -> usize {
        match seen.stage() {
            Stage::Play if seen.played().is_empty() => match self.lead {
                Lead::Searched(worlds) => worlds,
                // Asked for values, the lead is searched as any card.
                Lead::ByTable => self.worlds,
            },
            Stage::Play => self.worlds,
            _ => self.bid_worlds,
        }
    }
}

impl fmt::Display for SearchOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.worlds)?;
        match self.lead {
            Lead::Searched(worlds) if worlds == self.worlds => {}
            Lead::Searched(worlds) => write!(f, ",lead={worlds}")?,
            Lead::ByTable => write!(f, ",lead=table")?,
        }
        if self.bid_worlds != self.worlds {
            write!(f, ",bids={}", self.bid_worlds)?;
        }
        if self.values != WorldValues::OpenHand {
            write!(f, ",{}", self.values.word())?;
        }
        if self.bids == BidsBy::SearchEvery {
            write!(f, ",every-bid")?;
        }
        if self.trust_percent != TRUST_PERCENT {
            write!(f, ",trust={}", self.trust_percent)?;
        }
        if let Some(budget) = self.budget {
            write!(f, ",ms={}", budget.as_millis())?;
        }
        if self.infer_bids {
            write!(f, ",infer-bids")?;
        }
        if self.ahead {
            write!(f, ",ahead")?;
        }
        if self.continuations {
            write!(f, ",continuations")?;
        }
        if self.game {
            write!(f, ",game")?;
        }
        if self.endgame_bids {
            write!(f, ",endgame-bids")?;
        }
        Ok(())
    }
}
