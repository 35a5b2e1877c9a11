//! The card table's pages: the new-game page with its difficulty ladder,
//! and the play page (the score, the trump badge, the trick in play and
//! the hand's tricks so far, the person's hand arranged trump first and
//! always in view, hints that name the best move and say what it does,
//! and the tools: forced cards, undo, save, analyse).

use std::fmt::Write as _;

use euchre_game::engine::action::Action;
use euchre_game::engine::card::Card;
use euchre_game::engine::seat::{Seat, Team};
use euchre_game::engine::state::{Contract, Stage};
use euchre_game::engine::words::{action_words, arranged, shown_trump};

use euchre_bots::analysis::LossUnit;
use euchre_bots::human_game::{
    HandSummary, Hint, HumanGame, PERSON, PlayedTrick, Position, seat_name, value_words,
};

use super::catalog::{Level, MAX_CLIENT_PIMC_WORLDS, public_label};
use super::pages::{Html, card_html, error_banner, escape, ladder_options, page, suit_html};

fn team_name(team: Team) -> &'static str {
    match team {
        Team::NorthSouth => "You and North",
        Team::EastWest => "East and West",
    }
}

/// A move in a player's words; another seat's discard is face down.
fn action_text(action: Action) -> String {
    match action {
        Action::Discard(_) => "discard".to_owned(),
        action => action_words(action, &Html),
    }
}

fn contract_text(contract: Contract) -> String {
    format!(
        "{} made {} trump{}",
        seat_name(contract.maker),
        suit_html(contract.trump),
        if contract.alone { ", alone" } else { "" }
    )
}

/// A form that posts one move.
/// It carries the position it was drawn at, so a form posted twice, or
/// from an old page, is refused rather than applied to a later position.
fn move_button(
    game: &str,
    at: Position,
    action: Action,
    label: &str,
    class: &str,
    title: &str,
) -> String {
    format!(
        "<form method=\"post\" action=\"/game/{game}/move\" class=\"inline\">\
         <input type=\"hidden\" name=\"action\" value=\"{action}\">\
         <input type=\"hidden\" name=\"at\" value=\"{at}\">\
         <button type=\"submit\" class=\"{class}\" title=\"{}\" data-action=\"{action}\">{label}</button></form>",
        escape(title)
    )
}

/// The play page of one game; `error` is the reason a move was refused.
pub(super) fn play_page(
    game: &str,
    table: &HumanGame,
    error: Option<&str>,
    hint: Option<&Hint>,
) -> String {
    let mut body = error_banner(error);
    body.push_str(&score_html(table));
    // On a desk the felt (the table and the hand) sits beside the record
    // of the hand (bids, hints, tricks, tools); on a phone they stack.
    body.push_str("<div class=\"play\"><div class=\"felt\">");
    body.push_str(&table_html(table));
    let hint = hint.filter(|_| table.show_hints && table.persons_turn());
    match table.summary() {
        Some(summary) => body.push_str(&summary_html(game, table, summary)),
        None => body.push_str(&hand_html(game, table, hint.and_then(Hint::best))),
    }
    body.push_str("</div><div class=\"side\">");
    if let Some(hint) = hint.filter(|_| table.summary().is_none()) {
        body.push_str(&hints_html(table, hint));
    }
    body.push_str(&bids_html(table));
    body.push_str(&history_html(table));
    body.push_str(&tools_html(game, table));
    body.push_str("</div></div>");
    page("Euchre", &body, None)
}

/// What the hint bot makes of one of the person's moves: its value in
/// points per hand (with its spread over the deals sampled) and, where the
/// score is in view, the chance of winning the game after it; its
/// probability; or that it is the bot's choice.
fn hint_html_note(hint: &Hint, action: Action) -> String {
    match hint {
        Hint::Values { .. } => {
            let points = hint.value_of(LossUnit::Points, action).map(|value| {
                format!(
                    "{:+.2} points per hand (spread {:.2} over {} sampled deals)",
                    value.value, value.spread, value.worlds
                )
            });
            let chance = hint
                .value_of(LossUnit::Chance, action)
                .map(|value| value_words(LossUnit::Chance, value.value));
            [points, chance]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join("; ")
        }
        Hint::Probabilities(probabilities) => probabilities
            .iter()
            .find(|(a, _)| *a == action)
            .map_or(String::new(), |(_, p)| format!("{:.0}%", 100.0 * p)),
        Hint::Choice(choice) if *choice == action => "the bot's choice".to_owned(),
        Hint::Choice(_) => String::new(),
    }
}

/// The hint bot's judgement of each of the person's legal moves: shown
/// only on their turn and only for their own options.
fn hints_html(table: &HumanGame, hint: &Hint) -> String {
    let mut html = String::from("<section class=\"hints\" id=\"hints\"><h2>Hints</h2>");
    let best = hint.best();
    if let Some(advice) = hint.advice(table.state(), &Html) {
        let _ = write!(html, "<p id=\"advice\">{advice}</p>");
    }
    html.push_str("<ul>");
    for action in table.state().legal_actions().iter().copied() {
        let note = hint_html_note(hint, action);
        let shown = match action {
            Action::Discard(card) => format!("discard {}", card_html(card)),
            other => action_text(other),
        };
        let mark = if best == Some(action) {
            " <span class=\"chip best\">best</span>"
        } else {
            ""
        };
        let _ = write!(
            html,
            "<li data-action=\"{action}\">{shown}{mark}: {note}</li>"
        );
    }
    html.push_str("</ul></section>");
    html
}

/// A form that posts to one of the game's switches and actions.
fn tool_form(
    game: &str,
    path: &str,
    id: &str,
    fields: &[(&str, String)],
    label: &str,
    enabled: bool,
) -> String {
    let hidden: String = fields
        .iter()
        .map(|(name, value)| {
            format!(
                "<input type=\"hidden\" name=\"{name}\" value=\"{}\">",
                escape(value)
            )
        })
        .collect();
    let disabled = if enabled { "" } else { " disabled" };
    format!(
        "<form method=\"post\" action=\"/game/{game}/{path}\" class=\"inline\" id=\"{id}\">{hidden}<button type=\"submit\"{disabled}>{label}</button></form> "
    )
}

/// Hints and forced cards on or off, the move taken back in a practice
/// game, and the game so far saved or analysed.
fn tools_html(game: &str, table: &HumanGame) -> String {
    let switch = |on: bool| if on { "off" } else { "on" }.to_owned();
    let mut html = String::from("<div class=\"tools\">");
    html.push_str(&tool_form(
        game,
        "hints",
        "hints-toggle",
        &[("show", switch(table.show_hints))],
        if table.show_hints {
            "Hide hints"
        } else {
            "Show hints"
        },
        true,
    ));
    html.push_str(&tool_form(
        game,
        "forced",
        "forced-toggle",
        &[("show", switch(table.auto_play_forced))],
        if table.auto_play_forced {
            "Let me play forced cards"
        } else {
            "Play forced cards for me"
        },
        true,
    ));
    if table.practice() {
        html.push_str(&tool_form(
            game,
            "undo",
            "undo",
            &[("at", table.position().to_string())],
            "Take back my move",
            table.can_undo(),
        ));
    }
    html.push_str(&tool_form(
        game,
        "analyse",
        "analyse-game",
        &[],
        "Analyse this game",
        table.hands_played > 0,
    ));
    let _ = write!(
        html,
        "<a href=\"/game/{game}/game.egn\" id=\"save-egn\" download>Save the game (EGN)</a></div>"
    );
    if table.practice() {
        let _ = write!(
            html,
            "<p class=\"help\">A practice game: {} taken back so far.</p>",
            match table.taken_back() {
                1 => "1 move".to_owned(),
                n => format!("{n} moves"),
            }
        );
    }
    html
}

/// The game's score, the hand's number and who sits where.
fn score_html(table: &HumanGame) -> String {
    let mut html = String::new();
    let _ = write!(
        html,
        "<section class=\"score\"><h1>Euchre to {}</h1><p>{}: <b id=\"score-ns\">{}</b> &middot; {}: <b id=\"score-ew\">{}</b> &middot; hand {}</p>",
        table.target,
        team_name(Team::NorthSouth),
        table.score[0],
        team_name(Team::EastWest),
        table.score[1],
        table.hands_played + 1 - u32::from(table.summary().is_some()),
    );
    let _ = write!(
        html,
        "<p class=\"players\">North (partner): {} &middot; East and West: {}</p></section>",
        escape(&public_label(
            &table.bot_name(Seat::North).unwrap_or_default()
        )),
        escape(&public_label(
            &table.bot_name(Seat::East).unwrap_or_default()
        )),
    );
    html
}

/// The table: dealer, upcard and contract, tricks won, the bids, the
/// trick in play and the last one.
fn table_html(table: &HumanGame) -> String {
    let state = table.state();
    let mut html = String::from("<section class=\"table\">");
    if let Some(contract) = state.contract() {
        let _ = write!(
            html,
            "<p class=\"trump-badge\" id=\"trump\"><span class=\"trump-suit\">{}</span> trump</p>",
            suit_html(contract.trump)
        );
    }
    let _ = write!(
        html,
        "<p>Dealer: <b id=\"dealer\">{}</b> &middot; upcard {}",
        seat_name(state.dealer()),
        card_html(state.upcard())
    );
    match state.contract() {
        Some(contract) => {
            let _ = write!(
                html,
                " &middot; <span id=\"contract\">{}</span>",
                contract_text(contract)
            );
            if let Some(defender) = state.lone_defender() {
                let _ = write!(html, ", {} defends alone", seat_name(defender));
            }
        }
        None if state.stage() == Stage::BiddingRound2 => html.push_str(" (turned down)"),
        None => {}
    }
    let _ = write!(
        html,
        "</p><p>Tricks: {} <b id=\"tricks-ns\">{}</b> &middot; {} <b id=\"tricks-ew\">{}</b></p>",
        team_name(Team::NorthSouth),
        state.tricks_won(Team::NorthSouth),
        team_name(Team::EastWest),
        state.tricks_won(Team::EastWest)
    );
    html.push_str("<div class=\"tricks-pair\">");
    if state.stage() == Stage::Play {
        let leader = table.tricks().last().filter(|trick| trick.winner.is_none());
        let _ = write!(
            html,
            "<div><h2>Trick {}{}</h2>",
            state.tricks_played() + 1,
            leader.map_or(String::new(), |trick| format!(
                ", led by {}",
                seat_name(trick.leader)
            ))
        );
        html.push_str(&trick_html(
            "trick",
            |seat| {
                let trick = state.trick();
                trick.has_played(seat).then(|| trick.cards[seat.index()])
            },
            state_sits_out(table),
        ));
        html.push_str("</div>");
    }
    if let Some(last) = table.last_trick() {
        let _ = write!(
            html,
            "<div><h2>Last trick, led by {}, won by {}</h2>",
            seat_name(last.leader),
            last.winner.map_or("", seat_name)
        );
        html.push_str(&trick_html(
            "last-trick",
            |seat| last.cards[seat.index()],
            state_sits_out(table),
        ));
        html.push_str("</div>");
    }
    html.push_str("</div></section>");
    html
}

/// Every bid so far (the person's own discard shown, no one else's).
fn bids_html(table: &HumanGame) -> String {
    let mut html = String::from("<h2>Bids</h2><ol class=\"bids\">");
    for &(seat, action) in table.history() {
        if matches!(action, Action::Play(_)) {
            continue;
        }
        let text = match action {
            Action::Discard(card) if seat == PERSON => format!("discard {}", card_html(card)),
            other => action_text(other),
        };
        let _ = write!(html, "<li>{}: {text}</li>", seat_name(seat));
    }
    html.push_str("</ol>");
    html
}

fn state_sits_out(table: &HumanGame) -> [bool; 4] {
    std::array::from_fn(|i| table.state().sits_out(Seat::from_index(i as u8)))
}

fn trick_html(id: &str, card_of: impl Fn(Seat) -> Option<Card>, out: [bool; 4]) -> String {
    let mut html = format!("<div class=\"trick\" id=\"{id}\">");
    for seat in Seat::ALL {
        let shown = match card_of(seat) {
            Some(card) => card_html(card),
            None if out[seat.index()] => "<i>sits out</i>".to_owned(),
            None => "&nbsp;".to_owned(),
        };
        let _ = write!(
            html,
            "<div class=\"at-{}\"><small>{}</small><br>{shown}</div>",
            seat.letter().to_ascii_lowercase(),
            seat_name(seat)
        );
    }
    html.push_str("</div>");
    html
}

/// The person's cards and, on their turn, the moves they may make.
fn hand_html(game: &str, table: &HumanGame, best: Option<Action>) -> String {
    let state = table.state();
    let mut html = String::from(
        "<section class=\"hand\" id=\"hand-section\" aria-label=\"Your hand\"><h2>Your hand</h2><div id=\"hand\">",
    );
    let your_turn = table.persons_turn();
    for card in arranged(state.hand(PERSON), shown_trump(state)) {
        let action = if state.stage() == Stage::DealerDiscard {
            Action::Discard(card)
        } else {
            Action::Play(card)
        };
        let label = format!("{}{}", card.rank().word(), suit_html(card.suit()));
        let (class, title) = if best == Some(action) {
            ("card legal best", "the hint's best move")
        } else {
            ("card legal", "")
        };
        html.push_str(&match table.why_not(action) {
            None => move_button(game, table.position(), action, &label, class, title),
            Some(reason) => move_button(
                game,
                table.position(),
                action,
                &label,
                "card illegal",
                &reason,
            ),
        });
    }
    html.push_str("</div>");
    if your_turn {
        let bids: Vec<Action> = state
            .legal_actions()
            .iter()
            .copied()
            .filter(|action| !matches!(action, Action::Play(_) | Action::Discard(_)))
            .collect();
        if !bids.is_empty() {
            html.push_str("<p id=\"bids\">");
            for action in bids {
                let (class, title, star) = if best == Some(action) {
                    (
                        "bid best",
                        "the hint's best move",
                        "<span aria-hidden=\"true\">★ </span>",
                    )
                } else {
                    ("bid", "", "")
                };
                html.push_str(&move_button(
                    game,
                    table.position(),
                    action,
                    &format!("{star}{}", action_text(action)),
                    class,
                    title,
                ));
            }
            html.push_str("</p>");
        }
        let prompt = match state.stage() {
            Stage::DealerDiscard => "You picked up the upcard: click a card to discard.",
            Stage::Play => "Your turn: click a card to play.",
            _ => "Your turn to bid.",
        };
        let _ = write!(html, "<p id=\"prompt\">{prompt}</p>");
    }
    html.push_str("</section>");
    html
}

/// The hand's tricks so far: what every seat played, the card led marked
/// ▸, and who won it, so that a player can check what has gone.
fn history_html(table: &HumanGame) -> String {
    let tricks = table.tricks();
    if tricks.is_empty() {
        return String::new();
    }
    let mut html = String::from(
        "<section class=\"history\"><h2>Tricks this hand</h2><table class=\"tricks\" id=\"tricks\">\
         <tr><th scope=\"col\">trick</th>",
    );
    for seat in Seat::ALL {
        let _ = write!(html, "<th scope=\"col\">{}</th>", seat_name(seat));
    }
    html.push_str("<th scope=\"col\">won by</th></tr>");
    for (number, trick) in tricks.iter().enumerate() {
        html.push_str(&trick_row(number + 1, trick));
    }
    html.push_str("</table></section>");
    html
}

fn trick_row(number: usize, trick: &PlayedTrick) -> String {
    let mut row = format!("<tr><td>{number}</td>");
    for seat in Seat::ALL {
        let card = trick.cards[seat.index()].map_or(String::new(), card_html);
        // The card led is marked by a sign and, for a screen reader, words.
        let led = if seat == trick.leader {
            " class=\"led\"><span aria-hidden=\"true\">▸</span><span class=\"visually-hidden\">led </span"
        } else {
            ""
        };
        let _ = write!(row, "<td{led}>{card}</td>");
    }
    let _ = write!(row, "<td>{}</td></tr>", trick.winner.map_or("–", seat_name));
    row
}

/// After a hand: who made what, the points, the four hands on request,
/// and the way on.
fn summary_html(game: &str, table: &HumanGame, summary: &HandSummary) -> String {
    let mut html = String::from("<section class=\"summary\" id=\"summary\"><h2>Hand over</h2><p>");
    match summary.contract {
        Some(contract) => {
            let makers = contract.maker.team();
            let _ = write!(
                html,
                "{}. Tricks: {} {}, {} {}. ",
                contract_text(contract),
                team_name(makers),
                summary.tricks[makers.index()],
                team_name(makers.other()),
                summary.tricks[makers.other().index()]
            );
            for team in [Team::NorthSouth, Team::EastWest] {
                let points = summary.points[team.index()];
                if points > 0 {
                    let _ = write!(html, "{} score {points}.", team_name(team));
                }
            }
        }
        None => html.push_str("Everyone passed; nobody scores."),
    }
    html.push_str("</p><details id=\"reveal\"><summary>Show all four hands</summary><ul>");
    for seat in Seat::ALL {
        let cards: Vec<String> = summary.deal.hands[seat.index()]
            .iter()
            .map(card_html)
            .collect();
        let _ = write!(html, "<li>{}: {}</li>", seat_name(seat), cards.join(" "));
    }
    let _ = write!(html, "<li>Upcard: {}", card_html(summary.deal.upcard));
    if let Some(card) = summary.discard {
        let _ = write!(html, "; the dealer discarded {}", card_html(card));
    }
    html.push_str("</li></ul></details>");
    match table.winner() {
        Some(team) => {
            let _ = write!(
                html,
                "<p id=\"game-over\"><b>{} win the game, {} to {}.</b> <a href=\"/\">New game</a></p>",
                team_name(team),
                table.score[team.index()],
                table.score[team.other().index()]
            );
        }
        None => {
            let _ = write!(
                html,
                "<form method=\"post\" action=\"/game/{game}/next\"><input type=\"hidden\" name=\"at\" value=\"{}\"><button type=\"submit\" id=\"next-hand\">Next hand</button></form>",
                table.position()
            );
        }
    }
    html.push_str("</section>");
    html
}

/// The start page: a rung of the difficulty ladder for the partner and
/// for the opponents (or another bot typed in), the target, and whether
/// moves may be taken back; the ladder below says what each rung is.
pub(super) fn new_game_page(
    ladder: &[Level],
    partner: &str,
    opponents: &str,
    error: Option<&str>,
) -> String {
    let options = |chosen: &str| ladder_options(ladder, chosen);
    let typed = |chosen: &str| -> String {
        if ladder.iter().any(|level| level.choice == chosen) {
            String::new()
        } else {
            escape(chosen)
        }
    };
    let mut body = error_banner(error);
    let _ = write!(
        body,
        "<h1>Play euchre against the bots</h1>\
         <form method=\"post\" action=\"/games\" id=\"new-game\">\
         <p><label>Your partner <select name=\"partner\" id=\"partner\">{}</select></label></p>\
         <p><label>Opponents <select name=\"opponents\" id=\"opponents\">{}</select></label></p>\
         <details{}><summary>Another bot</summary>\
         <p><label>Partner <input name=\"partner_other\" value=\"{}\" size=\"24\"></label> \
         <label>Opponents <input name=\"opponents_other\" value=\"{}\" size=\"24\"></label></p>\
         <p class=\"help\">random, heuristic, pimc:N (N up to {MAX_CLIENT_PIMC_WORLDS}; pimc:N,game plays for the game), or a bot of the ladder by its bot name. A bot typed here is seated instead of the one chosen above.</p></details>\
         <p><label>Points to win <input name=\"target\" value=\"10\" size=\"4\" inputmode=\"numeric\"></label></p>\
         <p><label><input type=\"checkbox\" name=\"practice\" value=\"on\" id=\"practice\"> Practice game: I may take moves back</label></p>\
         <p><button type=\"submit\">Deal</button></p></form>",
        options(partner),
        options(opponents),
        if typed(partner).is_empty() && typed(opponents).is_empty() {
            ""
        } else {
            " open"
        },
        typed(partner),
        typed(opponents),
    );
    body.push_str(
        "<h2>The bots, weakest first</h2><table class=\"options ladder\" id=\"ladder\">\
         <tr><th scope=\"col\">level</th><th scope=\"col\">bot</th><th scope=\"col\">what it is</th></tr>",
    );
    for level in ladder {
        let _ = write!(
            body,
            "<tr><td>{}</td><td><code>{}</code></td><td>{}</td></tr>",
            escape(&level.name),
            escape(&level.choice),
            escape(&level.about)
        );
    }
    body.push_str("</table>");
    page("Euchre", &body, None)
}
