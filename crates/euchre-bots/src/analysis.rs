//! Analysis of a recorded game: every decision a player made with a choice,
//! judged by a bot that sees only what that player saw.
//!
//! For each decision the bot states what it would do and, where it chooses
//! by valuing its options (PIMC, the search bots), each legal action's value
//! for the mover's side in points per hand, with the spread over the worlds
//! it sampled. The **loss** of the move made is the value of the bot's best
//! move minus the value of the move made: what the player gave up, by the
//! bot's judgement, with its standard error over the worlds (a loss within
//! two of them is not marked: it may be the sampling's noise). A policy bot
//! gives its probabilities instead, and the heuristic only its move, so
//! neither gives a loss.
//!
//! **What the bot cannot know.** It judges from the mover's seat: it does not
//! see the other hands, even though the record does, so a move that lost
//! points only because the cards lay badly is not a loss here. A seat whose
//! hand the record does not show (a lone maker's partner) is not analysed.
//! When the record leaves out the dealer's discard, the dealer's decisions
//! are judged once for each card it could have discarded and the values
//! averaged; the discard itself is not judged.

use std::time::Instant;

use euchre_game::egn::{Game, Label, Variant, reconstruct};
use euchre_game::engine::action::Action;
use euchre_game::engine::card::CardSet;
use euchre_game::engine::seat::{Seat, Team};
use euchre_game::engine::state::GameState;
use euchre_game::game::{DEFAULT_TARGET, GameScore};
use rand::rngs::SmallRng;
use serde::Serialize;

use crate::bot::{ActionValue, Bot};
use crate::seen::Seen;

/// The loss, in points per hand, from which the bot marks a move as EGN's
/// labels would: dubious, mistake, blunder.
pub const MARKS: [(f64, Label); 3] = [
    (0.5, Label::Blunder),
    (0.25, Label::Mistake),
    (0.1, Label::Dubious),
];

/// The marks for losses in the chance of winning the game: a tenth of the
/// points' thresholds, since early in a game a point is worth about 7
/// points of percent under the reference model (0-0: 51.9%, 1-0: 59.0%,
/// dealing), so a blunder gives up 5% of a game, about half a point.
pub const CHANCE_MARKS: [(f64, Label); 3] = [
    (0.05, Label::Blunder),
    (0.025, Label::Mistake),
    (0.01, Label::Dubious),
];

/// How many standard errors a loss must exceed to be marked: a smaller one
/// may be the sampling's noise, not the move's.
pub const SIGNIFICANCE: f64 = 2.0;

/// What a judge's losses are counted in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LossUnit {
    /// Points per hand for the mover's side: a score-blind judge.
    Points,
    /// The mover's side's chance of winning the game, from the record's
    /// score: a judge that plays for the game.
    Chance,
}

impl LossUnit {
    pub fn marks(self) -> &'static [(f64, Label); 3] {
        match self {
            LossUnit::Points => &MARKS,
            LossUnit::Chance => &CHANCE_MARKS,
        }
    }

    /// The unit a judge's twin counts in ([`Bot::valuing`]).
    pub fn other(self) -> LossUnit {
        match self {
            LossUnit::Points => LossUnit::Chance,
            LossUnit::Chance => LossUnit::Points,
        }
    }

    /// A loss in this unit as a player reads it, with its standard error
    /// where it has one: "0.44 ± 0.14 points", "2.8% ± 0.9 of a game".
    pub fn loss_words(self, loss: f64, error: Option<f64>) -> String {
        match self {
            LossUnit::Points => format!(
                "{loss:.2}{} points",
                error.map_or(String::new(), |error| format!(" ± {error:.2}"))
            ),
            LossUnit::Chance => format!(
                "{:.1}%{} of a game",
                100.0 * loss,
                error.map_or(String::new(), |error| format!(" ± {:.1}", 100.0 * error))
            ),
        }
    }

    /// A move's value in this unit, short: "+0.29" points, "68.2%" to win.
    pub fn value_short(self, value: f64) -> String {
        match self {
            LossUnit::Points => format!("{value:+.2}"),
            LossUnit::Chance => format!("{:.1}%", 100.0 * value),
        }
    }

    /// A column of summed losses in this unit: a sum of chances is the
    /// games given up.
    pub fn total_heading(self) -> &'static str {
        match self {
            LossUnit::Points => "points lost",
            LossUnit::Chance => "games lost",
        }
    }

    /// The unit in words, for a report's key.
    pub fn describe(self) -> &'static str {
        match self {
            LossUnit::Points => "points per hand",
            LossUnit::Chance => "chance of winning the game (1 = a whole game)",
        }
    }
}

/// The bot's mark for a loss in points with standard error `error`, if it
/// is large enough to mark and larger than the noise of the worlds it was
/// valued on.
pub fn mark(loss: f64, error: f64) -> Option<Label> {
    mark_in(LossUnit::Points, loss, error)
}

/// [`mark`] for a loss in `unit`.
pub fn mark_in(unit: LossUnit, loss: f64, error: f64) -> Option<Label> {
    if loss <= SIGNIFICANCE * error {
        return None;
    }
    unit.marks()
        .iter()
        .find(|(threshold, _)| loss >= *threshold)
        .map(|&(_, label)| label)
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JudgedOption {
    pub action: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spread: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probability: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comment {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<&'static str>,
    pub text: String,
    /// Said in an alternative line that branches off at this decision,
    /// not of the move played.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub in_alternative_line: bool,
}

/// One decision with a choice, as the player made it and as the bot judged it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Decision {
    pub deal: i64,
    /// The action's position in the deal's replay (see [`DealReport::actions`]).
    pub index: usize,
    /// The trick, from 1, for a card played.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trick: Option<usize>,
    pub seat: String,
    pub player: String,
    pub made: String,
    pub preferred: String,
    pub options: Vec<JudgedOption>,
    /// The value of the bot's best move minus the move made's, for the
    /// mover's side; `None` when the bot gives no values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loss: Option<f64>,
    /// The loss's standard error over the worlds the bot valued (paired:
    /// the luck both moves share cancels).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loss_error: Option<f64>,
    /// The bot's mark, from [`MARKS`], for a loss larger than
    /// [`SIGNIFICANCE`] standard errors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mark: Option<&'static str>,
    /// The move made was the only good one, as a chess board marks `!`:
    /// the bot's choice, and every other option gives up at least a
    /// mistake's loss, each by more than [`SIGNIFICANCE`] standard errors.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub only_move: bool,
    /// The same decision judged in the other unit by the judge's twin
    /// ([`Bot::valuing`]): what the move cost in chances of winning the
    /// game beside its points, or in points beside its chances. Present
    /// where the judge values moves and, for chances, the record's score
    /// is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub beside: Option<Beside>,
    /// How many possible discards were weighed (1 when the record was clear).
    pub discards_weighed: usize,
    pub annotations: Vec<Comment>,
    pub millis: f64,
}

/// A decision judged in the other unit ([`Decision::beside`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Beside {
    pub unit: LossUnit,
    /// The twin's best move, which may differ from the judge's: near the
    /// end of a game the best move for points need not be the best for
    /// the game.
    pub preferred: String,
    /// Each option's value in this unit, in the order of
    /// [`Decision::options`].
    pub values: Vec<f64>,
    pub loss: f64,
    pub loss_error: f64,
    /// The mark in this unit's thresholds, as [`Decision::mark`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mark: Option<&'static str>,
}

/// A decision the analysis passed over, and why.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Skipped {
    pub index: usize,
    pub seat: String,
    pub reason: &'static str,
}

/// A deal as replayed, enough to show it card by card, with its decisions.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DealReport {
    pub number: i64,
    pub dealer: String,
    pub upcard: String,
    /// The hands as dealt, by seat N, E, S, W; empty where not known.
    pub hands: Vec<Vec<String>>,
    /// Every action in order as `[seat, action]`.
    pub actions: Vec<[String; 2]>,
    /// Points scored by NS and EW.
    pub points: [u8; 2],
    /// The game's score (NS, EW) as the deal was dealt, where the record
    /// lets it be followed from its initial score.
    pub score: Option<[u8; 2]>,
    pub decisions: Vec<Decision>,
    pub skipped: Vec<Skipped>,
    /// Annotations on decisions that were not analysed (no choice, or an
    /// unknown hand), so that a reader still sees them.
    pub other_annotations: Vec<(usize, Comment)>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Totals {
    pub name: String,
    pub decisions: usize,
    /// Decisions where the move made was the bot's.
    pub agreed: usize,
    /// Decisions with a value, over which the losses are summed.
    pub valued: usize,
    pub total_loss: f64,
    pub mean_loss: f64,
    /// Decisions judged in the other unit too ([`Decision::beside`]), and
    /// their losses in it.
    pub beside_valued: usize,
    pub beside_total_loss: f64,
    pub beside_mean_loss: f64,
}

impl Totals {
    /// The summed loss in the other unit as a column shows it (points to
    /// the hundredth, games to the thousandth); `None` where no decision
    /// was judged there.
    pub fn beside_total(&self, unit: LossUnit) -> Option<String> {
        (self.beside_valued > 0).then(|| match unit {
            LossUnit::Points => format!("{:.2}", self.beside_total_loss),
            LossUnit::Chance => format!("{:.3}", self.beside_total_loss),
        })
    }

    fn add(&mut self, decision: &Decision) {
        self.decisions += 1;
        self.agreed += usize::from(decision.made == decision.preferred);
        if let Some(loss) = decision.loss {
            self.valued += 1;
            self.total_loss += loss;
        }
        self.mean_loss = self.total_loss / self.valued.max(1) as f64;
        if let Some(beside) = &decision.beside {
            self.beside_valued += 1;
            self.beside_total_loss += beside.loss;
        }
        self.beside_mean_loss = self.beside_total_loss / self.beside_valued.max(1) as f64;
    }
}

/// A loss worth reading first.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LargeLoss {
    pub deal: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trick: Option<usize>,
    pub player: String,
    pub made: String,
    pub preferred: String,
    pub loss: f64,
    /// The loss's 95% half-width over the judge's worlds, where it has
    /// one: a loss inside it is not yet a mistake.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loss_error: Option<f64>,
    /// The same move's loss in the other unit, where it was judged there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub beside_loss: Option<f64>,
}

/// How the bot judged the decisions annotators labelled with one label.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LabelRow {
    pub label: &'static str,
    pub decisions: usize,
    /// Where the bot would have made the same move.
    pub bot_agreed: usize,
    /// Where the bot marked the move dubious or worse.
    pub bot_marked_fault: usize,
    pub mean_loss: Option<f64>,
    /// Where the judge's twin, in the other unit, marked it dubious or
    /// worse, and its mean loss there.
    pub beside_marked_fault: usize,
    pub beside_mean_loss: Option<f64>,
}

/// A refused deal and the reason.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Refused {
    pub deal: i64,
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameAnalysis {
    pub title: String,
    pub bot: String,
    /// What the losses are counted in.
    pub unit: LossUnit,
    /// What [`Decision::beside`] counts in, where the judge has a twin.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub beside_unit: Option<LossUnit>,
    pub rules: String,
    pub deals: Vec<DealReport>,
    pub refused: Vec<Refused>,
    /// By seat N, E, S, W.
    pub players: Vec<Totals>,
    /// NS, then EW.
    pub teams: Vec<Totals>,
    pub largest: Vec<LargeLoss>,
    pub labels: Vec<LabelRow>,
    pub seconds: f64,
}

/// Values closer than this are equal: a move worth as much as the best is
/// the bot's choice too.
const TIE: f64 = 1e-9;

/// How many of the largest losses a summary lists.
const LARGEST: usize = 10;

/// Analyses every deal of `game` with `bot`. Decisions run in parallel; each
/// draws its worlds from a generator seeded by `seed`, the deal and the
/// decision, so a run repeats exactly.
pub fn analyse(game: &Game, bot: &dyn Bot, seed: u64) -> GameAnalysis {
    let started = Instant::now();
    let mut refused = Vec::new();
    let mut deals = Vec::new();
    let unit = if bot.plays_for_the_game() {
        LossUnit::Chance
    } else {
        LossUnit::Points
    };
    // The same judge in the other unit, on the same worlds: chances of
    // winning the game beside points, or points beside chances.
    let twin = bot.valuing(unit == LossUnit::Points);
    // The score before each deal, followed from the record's initial score
    // while every deal replays.
    let target = game
        .winning_score
        .and_then(|target| u8::try_from(target).ok())
        .filter(|target| (1..=100).contains(target))
        .unwrap_or(DEFAULT_TARGET);
    let mut running: Option<[u8; 2]> = match game.metadata.initial_score.as_slice() {
        [ns, ew] => u8::try_from(*ns)
            .ok()
            .zip(u8::try_from(*ew).ok())
            .map(|(ns, ew)| [ns, ew])
            .filter(|points| points.iter().all(|&p| p < target)),
        _ => None,
    };
    for (position, entry) in game.deals.iter().enumerate() {
        if crate::stop::requested() {
            break;
        }
        let deal = match entry {
            Ok(deal) => deal,
            Err(error) => {
                running = None;
                refused.push(Refused {
                    deal: error.number,
                    reason: error.problem.to_string(),
                });
                continue;
            }
        };
        let rebuilt = match reconstruct(deal, game.rules) {
            Ok(rebuilt) => rebuilt,
            Err(problem) => {
                running = None;
                refused.push(Refused {
                    deal: deal.number,
                    reason: problem.to_string(),
                });
                continue;
            }
        };
        let score = running.map(|points| GameScore {
            points,
            dealer: rebuilt.variants[0].deal.dealer,
            target,
        });
        if unit == LossUnit::Chance && score.is_none() {
            refused.push(Refused {
                deal: deal.number,
                reason: "the game's score before this deal is unknown (an earlier deal did not replay, or the record has no initial score), and the judge plays for the game".to_owned(),
            });
            continue;
        }
        let judged_at = score.filter(|_| unit == LossUnit::Chance);
        // Chances need the score; points are judged without one.
        let beside = twin.as_deref().and_then(|twin| match unit {
            LossUnit::Points => score.map(|score| (twin, Some(score))),
            LossUnit::Chance => Some((twin, None)),
        });
        let mut report = deal::DealJudge {
            game,
            deal,
            rebuilt: &rebuilt,
            bot,
            beside,
            seed,
            position,
            score: judged_at,
            unit,
            alternatives: deal.alternative_comments(),
        }
        .analyse();
        report.score = score.map(|score| score.points);
        deals.push(report);
        // A game ends at the target; a record that goes on is no longer
        // followed.
        running = score
            .map(|score| match rebuilt.end.outcome() {
                Some(outcome) => score.after(&outcome),
                None => score,
            })
            .filter(|after| after.winner().is_none())
            .map(|after| after.points);
    }
    let Summary {
        players,
        teams,
        largest,
        labels,
    } = summarise(game, &deals);
    GameAnalysis {
        title: game
            .metadata
            .title
            .clone()
            .unwrap_or_else(|| "untitled game".to_owned()),
        bot: bot.name(),
        unit,
        beside_unit: twin.is_some().then(|| unit.other()),
        rules: game.rules.to_string(),
        deals,
        refused,
        players,
        teams,
        largest,
        labels,
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// The game's totals by player and by team, its largest losses and the
/// annotators' labels against the judge.
struct Summary {
    players: Vec<Totals>,
    teams: Vec<Totals>,
    largest: Vec<LargeLoss>,
    labels: Vec<LabelRow>,
}

fn summarise(game: &Game, deals: &[DealReport]) -> Summary {
    let mut players: Vec<Totals> = Seat::ALL
        .iter()
        .map(|seat| Totals {
            name: format!("{} ({seat})", game.names[seat.index()]),
            ..Totals::default()
        })
        .collect();
    let mut teams: Vec<Totals> = [Team::NorthSouth, Team::EastWest]
        .iter()
        .map(|team| {
            let seats: Vec<&str> = Seat::ALL
                .iter()
                .filter(|seat| seat.team() == *team)
                .map(|seat| game.names[seat.index()].as_str())
                .collect();
            Totals {
                name: format!("{} ({})", seats.join(" & "), team.name()),
                ..Totals::default()
            }
        })
        .collect();
    let mut largest = Vec::new();
    let mut labels: Vec<LabelRow> = Label::ALL
        .iter()
        .map(|label| LabelRow {
            label: label.word(),
            decisions: 0,
            bot_agreed: 0,
            bot_marked_fault: 0,
            mean_loss: None,
            beside_marked_fault: 0,
            beside_mean_loss: None,
        })
        .collect();
    let mut label_losses = vec![(0.0, 0usize); Label::ALL.len()];
    let mut beside_losses = vec![(0.0, 0usize); Label::ALL.len()];
    for decision in deals.iter().flat_map(|deal| &deal.decisions) {
        let seat: Seat = decision.seat.parse().unwrap_or(Seat::North);
        players[seat.index()].add(decision);
        teams[seat.team().index()].add(decision);
        if let Some(loss) = decision.loss {
            largest.push(LargeLoss {
                deal: decision.deal,
                trick: decision.trick,
                player: decision.player.clone(),
                made: decision.made.clone(),
                preferred: decision.preferred.clone(),
                loss,
                loss_error: decision.loss_error,
                beside_loss: decision.beside.as_ref().map(|beside| beside.loss),
            });
        }
        // A label in an alternative line judges that line's move, not the
        // one played here.
        let main_line = decision
            .annotations
            .iter()
            .filter(|c| !c.in_alternative_line);
        for comment in main_line {
            let Some(position) = Label::ALL
                .iter()
                .position(|label| Some(label.word()) == comment.label)
            else {
                continue;
            };
            let row = &mut labels[position];
            row.decisions += 1;
            row.bot_agreed += usize::from(decision.made == decision.preferred);
            let fault = |mark: Option<&str>| {
                mark.is_some_and(|mark| MARKS.iter().any(|(_, label)| label.word() == mark))
            };
            row.bot_marked_fault += usize::from(fault(decision.mark));
            if let Some(loss) = decision.loss {
                label_losses[position].0 += loss;
                label_losses[position].1 += 1;
            }
            if let Some(beside) = &decision.beside {
                row.beside_marked_fault += usize::from(fault(beside.mark));
                beside_losses[position].0 += beside.loss;
                beside_losses[position].1 += 1;
            }
        }
    }
    let mean = |(sum, count): (f64, usize)| (count > 0).then(|| sum / count as f64);
    for ((row, losses), beside) in labels.iter_mut().zip(label_losses).zip(beside_losses) {
        row.mean_loss = mean(losses);
        row.beside_mean_loss = mean(beside);
    }
    labels.retain(|row| row.decisions > 0);
    largest.sort_by(|a, b| b.loss.total_cmp(&a.loss));
    largest.truncate(LARGEST);
    Summary {
        players,
        teams,
        largest,
        labels,
    }
}

fn comment_of(annotation: &euchre_game::egn::Annotation) -> Comment {
    Comment {
        label: annotation.label.map(Label::word),
        text: annotation.text.clone(),
        in_alternative_line: false,
    }
}

fn cards(hand: CardSet) -> Vec<String> {
    hand.iter().map(|card| card.to_string()).collect()
}

/// The bot's judgement of one decision in one variant.
struct Judged {
    legal: Vec<Action>,
    /// Each action's value, spread and shortfall error.
    values: Option<Vec<(f64, f64, f64)>>,
    probabilities: Option<Vec<f64>>,
    choice: Action,
}

fn judge(
    game: &Game,
    variant: &Variant,
    index: usize,
    bot: &dyn Bot,
    score: Option<GameScore>,
    rng: &mut SmallRng,
) -> Judged {
    let state = state_before(game, variant, index);
    let seen = seen_with(&state, &variant.actions[..index], score);
    let legal: Vec<Action> = seen.legal().iter().copied().collect();
    if let Some(values) = bot.values(&seen, rng) {
        return judged_by_values(legal, &values);
    }
    if let Some(probabilities) = bot.probabilities(&seen) {
        let probabilities: Vec<f64> = legal
            .iter()
            .map(|action| {
                probabilities
                    .iter()
                    .find(|(a, _)| a == action)
                    .map_or(0.0, |(_, p)| *p)
            })
            .collect();
        let choice = legal[best(probabilities.iter().copied())];
        return Judged {
            legal,
            values: None,
            probabilities: Some(probabilities),
            choice,
        };
    }
    let choice = bot.act(&seen, rng);
    Judged {
        legal,
        values: None,
        probabilities: None,
        choice,
    }
}

/// [`judge`] by `bot` and by its twin in the other unit (seen with
/// `twin_score`) from one set of solves ([`Bot::values_beside`]): what the
/// two would give judged in turn from generators in `rng`'s state. `None`
/// where the bot cannot share them.
fn judge_beside(
    game: &Game,
    variant: &Variant,
    index: usize,
    bot: &dyn Bot,
    (score, twin_score): (Option<GameScore>, Option<GameScore>),
    rng: &mut SmallRng,
) -> Option<[Judged; 2]> {
    let state = state_before(game, variant, index);
    let seen = seen_with(&state, &variant.actions[..index], score);
    let [own, twin] = bot.values_beside(&seen, twin_score, rng)?;
    let legal: Vec<Action> = seen.legal().iter().copied().collect();
    Some([
        judged_by_values(legal.clone(), &own),
        judged_by_values(legal, &twin),
    ])
}

/// The state just before decision `index` of `variant`.
fn state_before(game: &Game, variant: &Variant, index: usize) -> GameState {
    let mut state = GameState::new(variant.deal, game.rules);
    for &(_, action) in &variant.actions[..index] {
        state.apply(action);
    }
    state
}

fn seen_with<'s>(
    state: &'s GameState,
    history: &'s [(Seat, Action)],
    score: Option<GameScore>,
) -> Seen<'s> {
    match score {
        Some(score) => Seen::in_game(state, history, score),
        None => Seen::new(state, history),
    }
}

/// A judgement from each legal action's value.
fn judged_by_values(legal: Vec<Action>, values: &[ActionValue]) -> Judged {
    let values: Vec<(f64, f64, f64)> = legal
        .iter()
        .map(|action| {
            values
                .iter()
                .find(|value| value.action == *action)
                .map_or((0.0, 0.0, 0.0), |value| {
                    (value.value, value.spread, value.shortfall_error)
                })
        })
        .collect();
    let choice = legal[best(values.iter().map(|v| v.0))];
    Judged {
        legal,
        values: Some(values),
        probabilities: None,
        choice,
    }
}

/// The index of the largest number, the first of equals.
fn best(numbers: impl Iterator<Item = f64>) -> usize {
    let mut best = (0, f64::NEG_INFINITY);
    for (index, number) in numbers.enumerate() {
        if number > best.1 {
            best = (index, number);
        }
    }
    best.0
}

/// Judgements of the same decision in several variants (the dealer's
/// possible discards), averaged. The legal actions are the same in each:
/// only the discarded card differs, and it is never played.
fn combine(judged: &[Judged], made: Action) -> Combined {
    let count = judged.len() as f64;
    let first = &judged[0];
    let average = |pick: &dyn Fn(&Judged) -> Option<Vec<f64>>| -> Option<Vec<f64>> {
        let mut sum = vec![0.0; first.legal.len()];
        for judgement in judged {
            for (total, value) in sum.iter_mut().zip(pick(judgement)?) {
                *total += value;
            }
        }
        Some(sum.into_iter().map(|total| total / count).collect())
    };
    let values = average(&|j| j.values.as_ref().map(|v| v.iter().map(|x| x.0).collect()));
    let spreads = average(&|j| j.values.as_ref().map(|v| v.iter().map(|x| x.1).collect()));
    let shortfall_errors = average(&|j| j.values.as_ref().map(|v| v.iter().map(|x| x.2).collect()));
    let probabilities = average(&|j| j.probabilities.clone());
    let choice = match (&values, &probabilities) {
        // A move the bot values as highly as its best is one it agrees with.
        (Some(values), _) => {
            let best = best(values.iter().copied());
            let made_value = first
                .legal
                .iter()
                .position(|action| *action == made)
                .map(|at| values[at]);
            if made_value.is_some_and(|value| value >= values[best] - TIE) {
                made
            } else {
                first.legal[best]
            }
        }
        (None, Some(probabilities)) => first.legal[best(probabilities.iter().copied())],
        _ => first.choice,
    };
    Combined {
        legal: first.legal.clone(),
        values,
        spreads,
        shortfall_errors,
        probabilities,
        choice,
        made,
    }
}

struct Combined {
    legal: Vec<Action>,
    values: Option<Vec<f64>>,
    spreads: Option<Vec<f64>>,
    shortfall_errors: Option<Vec<f64>>,
    probabilities: Option<Vec<f64>>,
    choice: Action,
    made: Action,
}

impl Combined {
    /// Each legal option as judged, and the loss of the move made.
    fn verdict(&self) -> (Vec<JudgedOption>, Option<f64>, Option<f64>) {
        let at = |action: Action| self.legal.iter().position(|a| *a == action);
        let loss = self.values.as_ref().and_then(|values| {
            let made = values[at(self.made)?];
            let best = values[at(self.choice)?];
            Some((best - made).max(0.0))
        });
        let loss_error = self
            .shortfall_errors
            .as_ref()
            .and_then(|errors| Some(errors[at(self.made)?]));
        let options = self
            .legal
            .iter()
            .enumerate()
            .map(|(i, action)| JudgedOption {
                action: action.to_string(),
                value: self.values.as_ref().map(|v| v[i]),
                spread: self.spreads.as_ref().map(|v| v[i]),
                probability: self.probabilities.as_ref().map(|v| v[i]),
            })
            .collect();
        (options, loss, loss_error)
    }

    /// Whether the move made was the only good one ([`Decision::only_move`]).
    fn only_move(&self, unit: LossUnit) -> bool {
        let (Some(values), Some(errors)) = (&self.values, &self.shortfall_errors) else {
            return false;
        };
        let Some(made) = self.legal.iter().position(|a| *a == self.made) else {
            return false;
        };
        let mistake = unit.marks()[1].0;
        self.made == self.choice
            && self.legal.len() > 1
            && (0..self.legal.len()).filter(|&i| i != made).all(|i| {
                let shortfall = values[made] - values[i];
                shortfall >= mistake && shortfall > SIGNIFICANCE * errors[i]
            })
    }
}

mod deal;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::Tallies;

    /// `!` needs the move made to be the bot's, and every other option to
    /// lose at least a mistake's worth, beyond the noise.
    #[test]
    fn only_move_needs_every_other_option_a_clear_mistake() {
        let (pass, order) = (Action::Pass, Action::Order { alone: false });
        let combined = |values: [f64; 2], errors: [f64; 2], made: Action| Combined {
            legal: vec![pass, order],
            values: Some(values.to_vec()),
            spreads: None,
            shortfall_errors: Some(errors.to_vec()),
            probabilities: None,
            choice: pass,
            made,
        };
        let unit = LossUnit::Points;
        assert!(combined([0.5, 0.1], [0.0, 0.05], pass).only_move(unit));
        assert!(
            !combined([0.5, 0.3], [0.0, 0.05], pass).only_move(unit),
            "0.2 behind: short of a mistake"
        );
        assert!(
            !combined([0.5, 0.1], [0.0, 0.3], pass).only_move(unit),
            "within two errors: noise"
        );
        assert!(
            !combined([0.5, 0.1], [0.0, 0.05], order).only_move(unit),
            "not the move made"
        );
    }

    #[test]
    fn marks_need_the_threshold_and_two_standard_errors() {
        assert_eq!(mark(0.6, 0.1), Some(Label::Blunder));
        assert_eq!(mark(0.3, 0.1), Some(Label::Mistake));
        assert_eq!(mark(0.12, 0.05), Some(Label::Dubious));
        assert_eq!(mark(0.6, 0.3), None, "within two errors: noise");
        assert_eq!(mark(0.05, 0.0), None, "below every threshold");
    }

    /// Known values: two actions over four worlds, the second 1 point
    /// worse in two of them. The shortfall's error is paired: the luck
    /// both share (+2 or −2 in a world) cancels.
    #[test]
    fn a_shortfall_error_is_paired() {
        let legal = [Action::Pass, Action::Order { alone: false }];
        let mut tallies = Tallies::new(2);
        for values in [[2, 2], [-2, -2], [2, 1], [-2, -3]] {
            tallies.add(values.to_vec(), 1);
        }
        let values = tallies.values(&legal, 1.0);
        assert_eq!(values[0].value, 0.0);
        assert_eq!(values[1].value, -0.5);
        assert_eq!(values[0].shortfall_error, 0.0);
        // Gaps 0, 0, 1, 1: variance 0.25 over 4 worlds, error 0.25.
        assert!((values[1].shortfall_error - 0.25).abs() < 1e-12);
        // Unpaired, the spread alone would say ±2 a world.
        assert!((values[1].spread - 2.0615528128088303).abs() < 1e-12);
        assert_eq!(values[1].worlds, 4);
    }
}
