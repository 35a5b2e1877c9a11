//! One recorded deal judged decision by decision: which decisions are
//! judged and which are skipped (and why), each judged decision in
//! parallel, and the deal's report.

use std::sync::Arc;
use std::time::Instant;

use euchre_game::egn::{
    AlternativeComment, Annotated, Game, Reconstruction, RecordedDeal, Variant,
};
use euchre_game::engine::action::Action;
use euchre_game::engine::seat::Seat;
use euchre_game::engine::state::GameState;
use euchre_game::game::GameScore;
use rand::SeedableRng;
use rand::rngs::SmallRng;
use rayon::prelude::*;

use super::{
    Beside, Comment, DealReport, Decision, Judged, Label, LossUnit, Skipped, cards, combine,
    comment_of, judge, judge_beside, mark_in,
};
use crate::bot::Bot;

/// A deal to judge, with what judging it needs.
pub(super) struct DealJudge<'a> {
    pub game: &'a Game,
    pub deal: &'a RecordedDeal,
    pub rebuilt: &'a Reconstruction,
    pub bot: &'a dyn Bot,
    /// The judge's twin in the other unit ([`Bot::valuing`]) and the score
    /// it sees, where this deal can be judged in it.
    pub beside: Option<(&'a dyn Bot, Option<GameScore>)>,
    pub seed: u64,
    /// The deal's place in the record, which seeds its judgements.
    pub position: usize,
    /// The game's score the judge sees (`None`: score-blind).
    pub score: Option<GameScore>,
    /// What losses are counted in.
    pub unit: LossUnit,
    /// The comments of the deal's alternative lines, by branch.
    pub alternatives: Vec<AlternativeComment>,
}

/// A decision the judge looks at: its place in the actions, the seat and
/// what it did.
type Task = (usize, Seat, Action);

impl DealJudge<'_> {
    /// The deal's report: every decision with a choice judged, or skipped
    /// with its reason.
    pub(super) fn analyse(&self) -> DealReport {
        let canonical = &self.rebuilt.variants[0];
        let (tasks, skipped, other_annotations) = self.tasks();
        // Asked again on each of rayon's threads: a server stops an analysis
        // whose client left, and the rest of its decisions are then skipped.
        let stop = crate::stop::installed();
        let decisions: Vec<Decision> = tasks
            .par_iter()
            .filter_map(|&(index, seat, made)| {
                crate::stop::with_stop(Arc::clone(&stop), || {
                    (!crate::stop::requested()).then(|| self.judged(index, seat, made))
                })
            })
            .collect();
        let hands = Seat::ALL
            .iter()
            .map(|seat| {
                if self.rebuilt.known[seat.index()] {
                    cards(canonical.deal.hands[seat.index()])
                } else {
                    Vec::new()
                }
            })
            .collect();
        let outcome = self
            .rebuilt
            .end
            .outcome()
            .map_or([0, 0], |outcome| outcome.points);
        DealReport {
            number: self.deal.number,
            dealer: canonical.deal.dealer.to_string(),
            upcard: canonical.deal.upcard.to_string(),
            hands,
            actions: self.actions(),
            points: outcome,
            score: None,
            decisions,
            skipped,
            other_annotations,
        }
    }

    /// The decisions to judge; those with a choice that cannot be judged,
    /// with the reason; and the comments on decisions not judged.
    fn tasks(&self) -> (Vec<Task>, Vec<Skipped>, Vec<(usize, Comment)>) {
        let canonical = &self.rebuilt.variants[0];
        let mut tasks = Vec::new();
        let mut skipped = Vec::new();
        let mut other_annotations = Vec::new();
        let mut state = GameState::new(canonical.deal, self.game.rules);
        for (index, &(seat, action)) in canonical.actions.iter().enumerate() {
            let legal = state.legal_actions();
            let skip = if legal.len() < 2 {
                Some("no choice")
            } else if !self.rebuilt.known[seat.index()] {
                Some("the record does not show this hand")
            } else if self.rebuilt.unknown_discard_at == Some(index) {
                Some("the record does not say what the dealer discarded")
            } else {
                None
            };
            match skip {
                Some(reason) => {
                    if legal.len() >= 2 {
                        skipped.push(Skipped {
                            index,
                            seat: seat.to_string(),
                            reason,
                        });
                    }
                    for comment in self.comments_at(index) {
                        other_annotations.push((index, comment));
                    }
                }
                None => tasks.push((index, seat, action)),
            }
            state.apply(action);
        }
        (tasks, skipped, other_annotations)
    }

    /// How many cards were played before the action at `index`.
    fn plays_before(&self, index: usize) -> usize {
        self.rebuilt.variants[0].actions[..index]
            .iter()
            .filter(|(_, action)| matches!(action, Action::Play(_)))
            .count()
    }

    /// The record's comments on the action at `index`.
    /// The record's comments on the action at `index`, then those of the
    /// alternative lines that branch off there.
    fn comments_at(&self, index: usize) -> Vec<Comment> {
        let actions = &self.rebuilt.variants[0].actions;
        let action = actions[index].1;
        let mut comments: Vec<Comment> = self
            .deal
            .annotations
            .iter()
            .filter(|annotation| match annotation.at {
                Annotated::Call(call) => call == index && index < self.deal.calls.len(),
                Annotated::Play(play) => {
                    matches!(action, Action::Play(_)) && self.plays_before(index) == play
                }
            })
            .map(comment_of)
            .collect();
        // A line's branch counts the record's calls and plays, not the
        // discard.
        if !matches!(action, Action::Discard(_)) {
            let branch = actions[..index]
                .iter()
                .filter(|(_, action)| !matches!(action, Action::Discard(_)))
                .count();
            comments.extend(
                self.alternatives
                    .iter()
                    .filter(|comment| comment.branch == branch)
                    .map(|comment| Comment {
                        label: comment.label.map(Label::word),
                        text: comment.text.clone(),
                        in_alternative_line: true,
                    }),
            );
        }
        comments
    }

    /// The judgement of the decision at `index`, where `seat` made `made`.
    fn judged(&self, index: usize, seat: Seat, made: Action) -> Decision {
        let started = Instant::now();
        let rebuilt = self.rebuilt;
        // The dealer saw its discard: where the record does not give it,
        // judge the dealer once for each candidate.
        let variants: &[Variant] =
            if rebuilt.unknown_discard_at.is_some() && seat == rebuilt.variants[0].deal.dealer {
                &rebuilt.variants
            } else {
                &rebuilt.variants[..1]
            };
        // Each variant's worlds are drawn from a generator of its own, the
        // same for the judge and its twin: both value the same worlds.
        let rng_for = |variant_index: usize| {
            SmallRng::seed_from_u64(
                self.seed
                    ^ (self.position as u64) << 40
                    ^ (index as u64) << 20
                    ^ variant_index as u64,
            )
        };
        let judged_by = |bot: &dyn Bot, score: Option<GameScore>| {
            let judged: Vec<Judged> = variants
                .iter()
                .enumerate()
                .map(|(variant_index, variant)| {
                    judge(
                        self.game,
                        variant,
                        index,
                        bot,
                        score,
                        &mut rng_for(variant_index),
                    )
                })
                .collect();
            combine(&judged, made)
        };
        // Judged with its twin from one set of solves where the judge can
        // share them, the same judgements as asking each in turn.
        let shared = self.beside.and_then(|(_, twin_score)| {
            let mut own = Vec::with_capacity(variants.len());
            let mut twin = Vec::with_capacity(variants.len());
            for (variant_index, variant) in variants.iter().enumerate() {
                let [mine, theirs] = judge_beside(
                    self.game,
                    variant,
                    index,
                    self.bot,
                    (self.score, twin_score),
                    &mut rng_for(variant_index),
                )?;
                own.push(mine);
                twin.push(theirs);
            }
            Some((combine(&own, made), combine(&twin, made)))
        });
        let (combined, twin_combined) = match shared {
            Some((combined, twin_combined)) => (combined, Some(twin_combined)),
            None => (
                judged_by(self.bot, self.score),
                self.beside.map(|(twin, score)| judged_by(twin, score)),
            ),
        };
        let (options, loss, loss_error) = combined.verdict();
        let beside = twin_combined.and_then(|combined| {
            let (options, loss, loss_error) = combined.verdict();
            let (loss, loss_error) = (loss?, loss_error.unwrap_or(0.0));
            let unit = self.unit.other();
            Some(Beside {
                unit,
                preferred: combined.choice.to_string(),
                values: options.iter().filter_map(|option| option.value).collect(),
                loss,
                loss_error,
                mark: mark_in(unit, loss, loss_error).map(Label::word),
            })
        });
        let players = Seat::ALL
            .iter()
            .filter(|&&seat| !rebuilt.end.sits_out(seat))
            .count();
        Decision {
            deal: self.deal.number,
            index,
            trick: matches!(made, Action::Play(_)).then(|| self.plays_before(index) / players + 1),
            seat: seat.to_string(),
            player: self.game.names[seat.index()].clone(),
            made: made.to_string(),
            preferred: combined.choice.to_string(),
            options,
            loss,
            loss_error,
            mark: loss
                .and_then(|loss| mark_in(self.unit, loss, loss_error.unwrap_or(0.0)))
                .map(Label::word),
            only_move: combined.only_move(self.unit),
            beside,
            discards_weighed: variants.len(),
            annotations: self.comments_at(index),
            millis: started.elapsed().as_secs_f64() * 1000.0,
        }
    }

    /// The deal's actions as a player reads them, the unknown discard as
    /// `discard ?`.
    fn actions(&self) -> Vec<[String; 2]> {
        self.rebuilt.variants[0]
            .actions
            .iter()
            .enumerate()
            .map(|(index, (seat, action))| {
                let text = if self.rebuilt.unknown_discard_at == Some(index) {
                    "discard ?".to_owned()
                } else {
                    action.to_string()
                };
                [seat.to_string(), text]
            })
            .collect()
    }
}
