//! A [`Game`] as EGN text, and hands played here as a [`Game`].
//!
//! A hand played here is known whole, so its record carries the dealt hands
//! and the discard: another reader replays it without guessing. What EGN
//! cannot say (a table that forbids discarding the upcard) only narrows
//! what was legal, so a game played under it replays under EGN's rules.

use serde_json::{Map, Value};

use crate::egn::file::{
    EgnAnnotations, EgnBidding, EgnDeal, EgnFile, EgnInitialState, EgnMetadata, EgnPhase,
    EgnTrickPlay, FILE_TYPE, WRITTEN_VERSION,
};
use crate::egn::{Annotated, Game, RecordedDeal};
use crate::engine::action::Action;
use crate::engine::card::CardSet;
use crate::engine::rules::{LonerLead, Rules};
use crate::engine::seat::Seat;
use crate::engine::state::Deal;

/// The game as pretty-printed EGN JSON.
pub fn write(game: &Game) -> String {
    let mut metadata = game.metadata.clone();
    metadata.ruleset = Some(ruleset(game.rules, game.winning_score, game.num_deals));
    let deals = game
        .deals
        .iter()
        .filter_map(|deal| deal.as_ref().ok())
        .map(|deal| serde_json::to_value(egn_deal(deal)).unwrap_or(Value::Null))
        .collect();
    let file = EgnFile {
        file_type: FILE_TYPE.to_owned(),
        version: WRITTEN_VERSION.to_owned(),
        metadata,
        deals,
    };
    // Serialising plain structs of strings and numbers cannot fail.
    serde_json::to_string_pretty(&file).unwrap_or_default()
}

fn ruleset(rules: Rules, winning_score: Option<i64>, num_deals: Option<i64>) -> Map<String, Value> {
    let mut map = Map::new();
    map.insert("std".into(), rules.stick_the_dealer.into());
    map.insert("canadian".into(), rules.canadian_loners.into());
    let lead = match rules.loner_lead {
        LonerLead::LeftOfDealer => "LEFT_OF_DEALER",
        LonerLead::LeftOfLoner => "LEFT_OF_LONER",
    };
    map.insert("loner_lead".into(), lead.into());
    if rules.lone_defender {
        map.insert("defend_alone".into(), true.into());
    }
    if let Some(score) = winning_score {
        map.insert("winning_score".into(), score.into());
    }
    if let Some(deals) = num_deals {
        map.insert("num_deals".into(), deals.into());
    }
    map
}

fn annotation_map(deal: &RecordedDeal, call: bool) -> EgnAnnotations {
    let mut map = EgnAnnotations::new();
    for annotation in &deal.annotations {
        let ((Annotated::Call(index), true) | (Annotated::Play(index), false)) =
            (annotation.at, call)
        else {
            continue;
        };
        let tag = annotation.label.map_or("", |label| label.tag());
        map.entry(index.to_string())
            .or_default()
            .push(format!("{tag}{}", annotation.text));
    }
    map
}

fn egn_deal(deal: &RecordedDeal) -> EgnDeal {
    let calls = deal
        .calls
        .iter()
        .map(|action| match action {
            Action::Order { .. } => "Order".to_owned(),
            Action::Call { suit, .. } => suit.letter().to_string(),
            _ => "Pass".to_owned(),
        })
        .collect();
    let is_alone = deal.calls.iter().any(|action| {
        matches!(
            action,
            Action::Order { alone: true } | Action::Call { alone: true, .. }
        )
    });
    let mut phases = vec![EgnPhase::Bidding(EgnBidding {
        phase_number: 0,
        calls,
        is_alone,
        alone_defender: deal.lone_defender.map(|seat| seat.index() as i64),
        discard: deal.discard.map(|card| card.to_string()),
        card_exchanges: None,
        call_annotations: annotation_map(deal, true),
    })];
    if !deal.tricks.is_empty() {
        phases.push(EgnPhase::TrickPlay(EgnTrickPlay {
            phase_number: 1,
            tricks: deal
                .tricks
                .iter()
                .map(|trick| trick.iter().map(ToString::to_string).collect())
                .collect(),
            is_alone: false,
            play_annotations: annotation_map(deal, false),
        }));
    }
    let cards = |hand: CardSet| hand.iter().map(|card| card.to_string()).collect();
    EgnDeal {
        deal_number: deal.number,
        initial_state: EgnInitialState {
            dealer: deal.dealer.index() as i64,
            up_card: deal.upcard.to_string(),
            player_cards: deal.hands.iter().any(Option::is_some).then(|| {
                deal.hands
                    .iter()
                    .map(|&h| h.map_or_else(Vec::new, cards))
                    .collect()
            }),
        },
        phases,
        alternative_lines: deal.alternative_lines.clone(),
    }
}

impl RecordedDeal {
    /// A hand played here, from the deal and its actions in order.
    pub fn from_hand(number: i64, deal: &Deal, actions: &[(Seat, Action)]) -> RecordedDeal {
        let mut calls = Vec::new();
        let mut lone_defender = None;
        let mut discard = None;
        let mut plays = Vec::new();
        for &(seat, action) in actions {
            match action {
                Action::Pass if calls_open(&calls) => {
                    calls.push(action);
                }
                Action::Order { .. } | Action::Call { .. } => calls.push(action),
                Action::DefendAlone => lone_defender = Some(seat),
                Action::Discard(card) => discard = Some(card),
                Action::Play(card) => plays.push(card),
                Action::Pass => {}
            }
        }
        let lone_maker = calls.iter().any(|action| {
            matches!(
                action,
                Action::Order { alone: true } | Action::Call { alone: true, .. }
            )
        });
        let players = 4 - usize::from(lone_maker) - usize::from(lone_defender.is_some());
        RecordedDeal {
            number,
            dealer: deal.dealer,
            upcard: deal.upcard,
            hands: deal.hands.map(Some),
            calls,
            lone_defender,
            discard,
            tricks: plays.chunks(players).map(<[_]>::to_vec).collect(),
            annotations: Vec::new(),
            alternative_lines: Vec::new(),
        }
    }
}

/// Whether the bidding is still open: no order or call yet. Passes after
/// it are a defender's declining to defend alone.
fn calls_open(calls: &[Action]) -> bool {
    calls.iter().all(|action| *action == Action::Pass)
}

impl Game {
    /// A game of hands played here, under `rules`, by `names` (North first).
    pub fn of_hands(
        names: [String; 4],
        rules: Rules,
        hands: &[(Deal, Vec<(Seat, Action)>)],
    ) -> Game {
        Game {
            version: WRITTEN_VERSION.to_owned(),
            metadata: EgnMetadata {
                players: names
                    .iter()
                    .map(|name| Value::from(name.as_str()))
                    .collect(),
                initial_score: vec![0, 0],
                ..EgnMetadata::default()
            },
            names,
            rules,
            winning_score: None,
            num_deals: None,
            deals: hands
                .iter()
                .enumerate()
                .map(|(number, (deal, actions))| {
                    Ok(RecordedDeal::from_hand(number as i64, deal, actions))
                })
                .collect(),
        }
    }
}
