//! `trainer play`: a person plays south against three bots, to 10 points.

use std::io::{BufRead, Write};
use std::sync::Arc;

use anyhow::Context;
use euchre_game::engine::action::Action;
use euchre_game::engine::card::Card;
use euchre_game::engine::rules::Rules;
use euchre_game::engine::seat::{Seat, Team};
use euchre_game::engine::state::{Deal, GameState, Stage};
use euchre_game::engine::trump::{effective_suit, trump_order};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use euchre_bots::bot::Bot;
use euchre_bots::human_game::seat_name;
use euchre_bots::seen::Seen;
use euchre_bots::spec::from_spec;

#[derive(Debug)]
pub struct PlayRequest {
    pub partner: String,
    pub opponents: String,
    pub ascii: bool,
    pub seed: Option<u64>,
    pub target: u32,
    pub rules: Rules,
    pub unseen: euchre_bots::bots::policy::Unseen,
}

const HUMAN: Seat = Seat::South;

/// Runs games until the person quits or input ends.
pub fn run(
    request: &PlayRequest,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let partner: Arc<dyn Bot> =
        from_spec(&request.partner, request.rules, request.unseen).context("--partner")?;
    let opponents: Arc<dyn Bot> =
        from_spec(&request.opponents, request.rules, request.unseen).context("--opponents")?;
    let seed = request.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_nanos() as u64)
    });
    let mut rng = SmallRng::seed_from_u64(seed);
    let table = Terminal {
        ascii: request.ascii,
    };
    writeln!(
        out,
        "You are South. Your partner North is {}.",
        partner.name()
    )?;
    writeln!(out, "East and West are {}.", opponents.name())?;
    writeln!(out, "Type the number of a move; q quits. (seed {seed})")?;
    let mut score = [0u32; 2];
    let mut dealer = Seat::from_index(rng.random_range(0..4u8));
    loop {
        writeln!(out)?;
        writeln!(
            out,
            "=== New hand. Dealer: {}. Score: you and North {}, East and West {} (to {}) ===",
            seat_name(dealer),
            score[Team::NorthSouth.index()],
            score[Team::EastWest.index()],
            request.target
        )?;
        let deal = Deal::random(dealer, &mut rng);
        let Some(points) = table.play_hand(
            deal,
            request.rules,
            [&*partner, &*opponents],
            &mut rng,
            input,
            out,
        )?
        else {
            writeln!(out, "Bye.")?;
            return Ok(());
        };
        for team in [Team::NorthSouth, Team::EastWest] {
            score[team.index()] += u32::from(points[team.index()]);
        }
        if let Some(winner) = [Team::NorthSouth, Team::EastWest]
            .into_iter()
            .find(|team| score[team.index()] >= request.target)
        {
            writeln!(
                out,
                "*** {} win the game {}-{}. ***",
                if winner == HUMAN.team() {
                    "You and North"
                } else {
                    "East and West"
                },
                score[winner.index()],
                score[winner.other().index()]
            )?;
            score = [0, 0];
        }
        dealer = dealer.left();
    }
}

struct Terminal {
    ascii: bool,
}

impl Terminal {
    fn card(&self, card: Card) -> String {
        if self.ascii {
            card.to_string()
        } else {
            card.pretty()
        }
    }

    fn action(&self, action: Action) -> String {
        match action {
            Action::Discard(card) => format!("discard {}", self.card(card)),
            Action::Play(card) => format!("play {}", self.card(card)),
            Action::Call { suit, alone } => {
                let name = if self.ascii {
                    suit.letter().to_string()
                } else {
                    suit.symbol().to_string()
                };
                format!("call {name}{}", if alone { " alone" } else { "" })
            }
            other => other.to_string(),
        }
    }

    fn hand(&self, state: &GameState) -> String {
        let trump = state.contract().map_or(state.upcard().suit(), |c| c.trump);
        let mut cards: Vec<Card> = state.hand(HUMAN).iter().collect();
        cards.sort_by_key(|&card| {
            let suit = effective_suit(card, trump);
            let strength = if suit == trump {
                trump_order(card, trump) + 10
            } else {
                card.rank() as u8
            };
            (suit != trump, suit.index(), std::cmp::Reverse(strength))
        });
        cards
            .iter()
            .map(|&card| self.card(card))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Plays one hand; `None` when the person quits.
    fn play_hand(
        &self,
        deal: Deal,
        rules: Rules,
        [partner, opponents]: [&dyn Bot; 2],
        rng: &mut SmallRng,
        input: &mut dyn BufRead,
        out: &mut dyn Write,
    ) -> anyhow::Result<Option<[u8; 2]>> {
        let mut state = GameState::new(deal, rules);
        let mut history: Vec<(Seat, Action)> = Vec::new();
        let mut announced = false;
        writeln!(out, "Upcard: {}", self.card(deal.upcard))?;
        writeln!(out, "Your hand: {}", self.hand(&state))?;
        while let Some(seat) = state.to_act() {
            let action = if seat == HUMAN {
                match self.ask(&state, input, out)? {
                    Some(action) => action,
                    None => return Ok(None),
                }
            } else {
                let bot = if seat == HUMAN.partner() {
                    partner
                } else {
                    opponents
                };
                bot.act(&Seen::new(&state, &history), rng)
            };
            let tricks_before = state.tricks_played();
            let shown = match action {
                Action::Discard(_) if seat != HUMAN => "discards".to_owned(),
                _ => self.action(action),
            };
            writeln!(out, "  {:<6} {}", seat_name(seat), shown)?;
            state.apply(action);
            history.push((seat, action));
            if let Some(contract) = state.contract().filter(|_| !announced)
                && state.stage() == Stage::Play
            {
                announced = true;
                let trump = if self.ascii {
                    contract.trump.letter().to_string()
                } else {
                    contract.trump.symbol().to_string()
                };
                let alone = if contract.alone { ", alone" } else { "" };
                writeln!(
                    out,
                    "Trump is {trump}; {} made it{alone}.",
                    seat_name(contract.maker)
                )?;
            }
            if state.tricks_played() > tricks_before {
                let ns = state.tricks_won(Team::NorthSouth);
                let ew = state.tricks_won(Team::EastWest);
                let winner = if state.is_finished() {
                    None
                } else {
                    state.to_act()
                };
                match winner {
                    Some(seat) => writeln!(
                        out,
                        "  -> {} takes the trick (you and North {ns}, East and West {ew})",
                        seat_name(seat)
                    )?,
                    None => writeln!(out, "  -> tricks: you and North {ns}, East and West {ew}")?,
                }
            }
        }
        let Some(outcome) = state.outcome() else {
            return Ok(Some([0, 0]));
        };
        if state.contract().is_none() {
            writeln!(out, "Everyone passed: no points.")?;
        }
        for team in [Team::NorthSouth, Team::EastWest] {
            let points = outcome.points[team.index()];
            if points > 0 {
                writeln!(
                    out,
                    "{} score {points}.",
                    if team == HUMAN.team() {
                        "You and North"
                    } else {
                        "East and West"
                    }
                )?;
            }
        }
        Ok(Some(outcome.points))
    }

    /// Shows the person's options and reads a choice until it is valid.
    fn ask(
        &self,
        state: &GameState,
        input: &mut dyn BufRead,
        out: &mut dyn Write,
    ) -> anyhow::Result<Option<Action>> {
        let legal = state.legal_actions();
        if state.stage() == Stage::Play {
            let trick = state.trick();
            let shown: Vec<String> = Seat::ALL
                .into_iter()
                .filter(|&seat| trick.has_played(seat))
                .map(|seat| {
                    format!(
                        "{} {}",
                        seat_name(seat),
                        self.card(trick.cards[seat.index()])
                    )
                })
                .collect();
            if !shown.is_empty() {
                writeln!(out, "Trick so far: {}", shown.join(", "))?;
            }
        }
        writeln!(out, "Your hand: {}", self.hand(state))?;
        let options: Vec<String> = legal
            .iter()
            .enumerate()
            .map(|(index, &action)| format!("{}) {}", index + 1, self.action(action)))
            .collect();
        writeln!(out, "Your move: {}", options.join("   "))?;
        loop {
            write!(out, "> ")?;
            out.flush()?;
            let mut line = String::new();
            if input.read_line(&mut line)? == 0 {
                return Ok(None);
            }
            let answer = line.trim();
            if answer.eq_ignore_ascii_case("q") {
                return Ok(None);
            }
            match answer.parse::<usize>() {
                Ok(choice) if (1..=legal.len()).contains(&choice) => {
                    return Ok(Some(legal[choice - 1]));
                }
                _ => writeln!(
                    out,
                    "'{answer}' is not a move: type a number from 1 to {} (or q to quit).",
                    legal.len()
                )?,
            }
        }
    }
}
