//! `trainer play`: a person plays South against three bots, to 10 points,
//! in the terminal: a drawing of [`HumanGame`], which the web table plays too.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use euchre_game::engine::action::Action;
use euchre_game::engine::card::Card;
use euchre_game::engine::rules::Rules;
use euchre_game::engine::seat::{Seat, Team};
use euchre_game::engine::state::{GameState, Stage};
use euchre_game::engine::words::{
    Glyphs, Letters, Symbols, action_words, arranged, shown_order, shown_trump,
};

use euchre_bots::analysis::LossUnit;
use euchre_bots::bot::Bot;
use euchre_bots::human_game::{Hint, HumanGame, PERSON, seat_name};
use euchre_bots::spec::{LoadedPolicies, from_spec_sharing};

#[derive(Debug)]
pub struct PlayRequest {
    pub partner: String,
    pub opponents: String,
    pub ascii: bool,
    pub seed: Option<u64>,
    pub target: u32,
    pub rules: Rules,
    pub unseen: euchre_bots::bots::policy::Unseen,
    /// Write each game, after every hand, to this EGN file (the second
    /// game of a session to `NAME-2.egn`, and so on).
    pub save: Option<PathBuf>,
    /// The bot whose judgement of each of the person's moves is shown
    /// beside it.
    pub hints: Option<String>,
    /// A practice game: `u` takes back the person's last move.
    pub practice: bool,
    /// The person's only legal card is played for them.
    pub play_forced: bool,
}

/// Runs games until the person quits or input ends. The game itself is
/// [`HumanGame`], the model the web table plays too; this only draws it.
pub fn run(
    request: &PlayRequest,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    // The partner, the opponents and the hints over one run share its
    // files: loaded once, not once a role.
    let loaded = LoadedPolicies::default();
    let build = |spec: &str| from_spec_sharing(spec, request.rules, request.unseen, &loaded);
    let partner: Arc<dyn Bot> = build(&request.partner).context("--partner")?;
    let opponents: Arc<dyn Bot> = build(&request.opponents).context("--opponents")?;
    let seed = request.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_nanos() as u64)
    });
    let hints = request
        .hints
        .as_deref()
        .map(|spec| build(spec).context("--hints"))
        .transpose()?;
    if let Some(path) = &request.save {
        // Said before the first hand, not after it.
        store::check_writable(path).context("--save")?;
    }
    let terminal = Terminal {
        ascii: request.ascii,
        hints,
        practice: request.practice,
    };
    writeln!(
        out,
        "You are South. Your partner North is {}.",
        partner.name()
    )?;
    writeln!(out, "East and West are {}.", opponents.name())?;
    let undo = if request.practice {
        "; u takes your last move back"
    } else {
        ""
    };
    writeln!(
        out,
        "Type the number of a move{undo}; q quits. (seed {seed})"
    )?;
    for (number, game_seed) in (0..).map(|game: u64| (game, seed.wrapping_add(game))) {
        let save = request.save.as_deref().map(|path| numbered(path, number));
        let mut game = HumanGame::new(
            Arc::clone(&partner),
            Arc::clone(&opponents),
            request.rules,
            request.target,
            game_seed,
        )
        .with_practice(request.practice);
        game.auto_play_forced = request.play_forced;
        game.run_bots(&euchre_bots::stop::never());
        loop {
            let played = terminal.play_hand(&mut game, input, out)?;
            if let Some(path) = &save
                && game.summary().is_some()
            {
                save_game(path, &game)?;
            }
            if !played {
                if let Some(path) = save.as_ref().filter(|path| path.exists()) {
                    writeln!(out, "The game is saved in {}.", path.display())?;
                }
                writeln!(out, "Bye.")?;
                return Ok(());
            }
            if let Some(winner) = game.winner() {
                writeln!(
                    out,
                    "*** {} win the game {}-{}. ***",
                    if winner == PERSON.team() {
                        "You and North"
                    } else {
                        "East and West"
                    },
                    game.score[winner.index()],
                    game.score[winner.other().index()]
                )?;
                break;
            }
            game.next_hand(&euchre_bots::stop::never())?;
        }
    }
    Ok(())
}

/// `path` for a session's first game, `NAME-N.ext` for its Nth.
fn numbered(path: &Path, game: u64) -> PathBuf {
    if game == 0 {
        return path.to_path_buf();
    }
    let stem = path
        .file_stem()
        .map_or_else(Default::default, |s| s.to_string_lossy());
    let name = match path.extension() {
        Some(extension) => format!("{stem}-{}.{}", game + 1, extension.to_string_lossy()),
        None => format!("{stem}-{}", game + 1),
    };
    path.with_file_name(name)
}

/// Writes the game so far, whole or not at all: a reader never sees half a
/// file, even if the program is stopped while writing. Only a regular file
/// is replaced (a device, a FIFO or a link is refused, not replaced), and
/// the temporary file is made anew, never opened through a planted link.
fn save_game(path: &Path, game: &HumanGame) -> anyhow::Result<()> {
    store::write_atomically(path, game.egn().as_bytes())
        .with_context(|| format!("cannot save the game to {}", path.display()))
}

struct Terminal {
    ascii: bool,
    hints: Option<Arc<dyn Bot>>,
    practice: bool,
}

/// What the person typed at their turn.
enum Choice {
    Move(Action),
    /// Take the last move back (a practice game).
    Undo,
    Quit,
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
        if self.ascii {
            action_words(action, &Letters)
        } else {
            action_words(action, &Symbols)
        }
    }

    fn hand(&self, state: &GameState) -> String {
        arranged(state.hand(PERSON), shown_trump(state))
            .iter()
            .map(|&card| self.card(card))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Plays the game's current hand to its end; `false` when the person
    /// quits.
    fn play_hand(
        &self,
        game: &mut HumanGame,
        input: &mut dyn BufRead,
        out: &mut dyn Write,
    ) -> anyhow::Result<bool> {
        let deal = game.deal();
        writeln!(out)?;
        writeln!(
            out,
            "=== New hand. Dealer: {}. Score: you and North {}, East and West {} (to {}) ===",
            seat_name(deal.dealer),
            game.score[Team::NorthSouth.index()],
            game.score[Team::EastWest.index()],
            game.target
        )?;
        let mut replay = GameState::new(deal, *game.state().rules());
        writeln!(out, "Upcard: {}", self.card(deal.upcard))?;
        writeln!(out, "Your hand: {}", self.hand(&replay))?;
        let mut announced = false;
        let mut printed = 0;
        loop {
            for &(seat, action) in &game.history()[printed..] {
                self.show_move(&mut replay, seat, action, &mut announced, out)?;
            }
            printed = game.history().len();
            if game.summary().is_some() {
                self.show_outcome(game.state(), out)?;
                return Ok(true);
            }
            let hint = self.hints.as_deref().and_then(|bot| game.hint(bot));
            match self.ask(game.state(), hint.as_ref(), input, out)? {
                Choice::Quit => return Ok(false),
                Choice::Move(action) => game.person_moves(action, &euchre_bots::stop::never())?,
                Choice::Undo => match game.undo() {
                    Ok(()) => {
                        // The hand as it now stands, printed again.
                        writeln!(out, "(taken back)")?;
                        replay = GameState::new(deal, *game.state().rules());
                        announced = false;
                        for &(_, action) in game.history() {
                            replay.apply(action);
                        }
                        announced |= replay.contract().is_some() && replay.stage() == Stage::Play;
                        printed = game.history().len();
                    }
                    Err(error) => writeln!(out, "{error}")?,
                },
            }
        }
    }

    /// Prints one move, applies it to `replay` (the hand as printed so
    /// far), and says when trump is set and who took a trick.
    fn show_move(
        &self,
        replay: &mut GameState,
        seat: Seat,
        action: Action,
        announced: &mut bool,
        out: &mut dyn Write,
    ) -> anyhow::Result<()> {
        let tricks_before = replay.tricks_played();
        let shown = match action {
            Action::Discard(_) if seat != PERSON => "discards".to_owned(),
            _ => self.action(action),
        };
        writeln!(out, "  {:<6} {}", seat_name(seat), shown)?;
        replay.apply(action);
        if let Some(contract) = replay.contract().filter(|_| !*announced)
            && replay.stage() == Stage::Play
        {
            *announced = true;
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
        if replay.tricks_played() > tricks_before {
            let ns = replay.tricks_won(Team::NorthSouth);
            let ew = replay.tricks_won(Team::EastWest);
            let winner = if replay.is_finished() {
                None
            } else {
                replay.to_act()
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
        Ok(())
    }

    fn show_outcome(&self, state: &GameState, out: &mut dyn Write) -> anyhow::Result<()> {
        let Some(outcome) = state.outcome() else {
            return Ok(());
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
                    if team == PERSON.team() {
                        "You and North"
                    } else {
                        "East and West"
                    }
                )?;
            }
        }
        Ok(())
    }

    /// Shows the person's options and reads a choice until it is valid.
    fn ask(
        &self,
        state: &GameState,
        hint: Option<&Hint>,
        input: &mut dyn BufRead,
        out: &mut dyn Write,
    ) -> anyhow::Result<Choice> {
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
        let legal = numbered_moves(state);
        let options: Vec<String> = legal
            .iter()
            .enumerate()
            .map(|(index, &action)| {
                let note = hint.map_or(String::new(), |hint| hint_note(hint, action));
                format!("{}) {}{note}", index + 1, self.action(action))
            })
            .collect();
        writeln!(out, "Your move: {}", options.join("   "))?;
        let glyphs: &dyn Glyphs = if self.ascii { &Letters } else { &Symbols };
        if let Some(advice) = hint.and_then(|hint| hint.advice(state, glyphs)) {
            writeln!(out, "Hint: {advice}")?;
        }
        loop {
            write!(out, "> ")?;
            out.flush()?;
            let mut line = String::new();
            if input.read_line(&mut line)? == 0 {
                return Ok(Choice::Quit);
            }
            let answer = line.trim();
            if answer.eq_ignore_ascii_case("q") {
                return Ok(Choice::Quit);
            }
            if self.practice && answer.eq_ignore_ascii_case("u") {
                return Ok(Choice::Undo);
            }
            match answer.parse::<usize>() {
                Ok(choice) if (1..=legal.len()).contains(&choice) => {
                    return Ok(Choice::Move(legal[choice - 1]));
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

/// The moves offered, numbered in the order the hand is shown: cards as
/// they sit in the hand, bids in the engine's order.
fn numbered_moves(state: &GameState) -> Vec<Action> {
    let trump = shown_trump(state);
    let mut moves: Vec<Action> = state.legal_actions().iter().copied().collect();
    moves.sort_by_key(|&action| match action {
        Action::Play(card) | Action::Discard(card) => Some(shown_order(card, trump)),
        _ => None,
    });
    moves
}

/// What the hint bot makes of `action`, in brackets after the move: its
/// value for your side in points per hand and, where the game's score is
/// in view, your side's chance of winning the game after it; its
/// probability; or a star on the move it would make.
fn hint_note(hint: &Hint, action: Action) -> String {
    match hint {
        Hint::Values { .. } => {
            let value = |unit| hint.value_of(unit, action).map(|value| value.value);
            let notes: Vec<String> = [
                value(LossUnit::Points).map(|points| format!("{points:+.2}")),
                value(LossUnit::Chance).map(|chance| format!("wins {:.0}%", 100.0 * chance)),
            ]
            .into_iter()
            .flatten()
            .collect();
            if notes.is_empty() {
                String::new()
            } else {
                format!(" [{}]", notes.join(", "))
            }
        }
        Hint::Probabilities(probabilities) => probabilities
            .iter()
            .find(|(a, _)| *a == action)
            .map_or(String::new(), |(_, p)| format!(" [{:.0}%]", 100.0 * p)),
        Hint::Choice(choice) if *choice == action => " [*]".to_owned(),
        Hint::Choice(_) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use euchre_game::engine::state::Deal;
    use rand::rngs::SmallRng;
    use rand::{RngExt, SeedableRng};

    /// The numbers a player types follow the hand as printed: each card
    /// move is numbered in the order its card sits in the hand, and when
    /// every card may be played the list is the hand itself.
    #[test]
    fn moves_are_numbered_in_the_order_the_hand_is_shown() {
        let terminal = Terminal {
            ascii: true,
            hints: None,
            practice: false,
        };
        let mut rng = SmallRng::seed_from_u64(5);
        let (mut checked, mut whole_hands) = (0, 0);
        for _ in 0..200 {
            let mut state = GameState::new(Deal::random(Seat::North, &mut rng), Rules::default());
            while !state.is_finished() {
                let legal = state.legal_actions();
                if state.to_act() == Some(PERSON) && state.stage() == Stage::Play {
                    let moves = numbered_moves(&state);
                    assert_eq!(moves.len(), legal.len());
                    let cards: Vec<String> = moves
                        .iter()
                        .map(|&action| match action {
                            Action::Play(card) => terminal.card(card),
                            other => panic!("{other} while playing"),
                        })
                        .collect();
                    let shown = terminal.hand(&state);
                    let in_hand: Vec<&str> = shown
                        .split(' ')
                        .filter(|card| cards.iter().any(|c| c == card))
                        .collect();
                    assert_eq!(in_hand, cards, "hand {shown}");
                    if cards.len() == state.hand(PERSON).len() as usize {
                        assert_eq!(cards.join(" "), shown);
                        whole_hands += 1;
                    }
                    checked += 1;
                }
                let pick = rng.random_range(0..legal.len());
                state.apply(legal[pick]);
            }
        }
        assert!(checked > 200 && whole_hands > 50, "{checked} {whole_hands}");
    }
}
