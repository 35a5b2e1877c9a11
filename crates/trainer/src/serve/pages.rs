//! The HTML of each page, built as strings: plain forms and links, no
//! script, so every click is a request the server checks and a reload
//! shows the same game.

use std::fmt::Write as _;

use euchre_game::engine::action::Action;
use euchre_game::engine::card::{Card, Suit};
use euchre_game::engine::seat::{Seat, Team};
use euchre_game::engine::state::{Contract, Stage};
use euchre_game::engine::words::{Glyphs, action_words};

use super::catalog::public_label;
use euchre_bots::human_game::{HandSummary, Hint, HumanGame, PERSON, Position, seat_name};

use super::catalog::{MAX_CLIENT_PIMC_WORLDS, SUGGESTED_BUILT_INS};

/// Text made safe for HTML element content and quoted attributes.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The reason a request was refused, at the top of a page.
fn error_banner(error: Option<&str>) -> String {
    error.map_or_else(String::new, |error| {
        format!("<p class=\"error\" role=\"alert\">{}</p>", escape(error))
    })
}

/// A whole page around `body`; `refresh` reloads it every so many seconds.
pub fn page(title: &str, body: &str, refresh: Option<u32>) -> String {
    let refresh = refresh.map_or_else(String::new, |seconds| {
        format!("<meta http-equiv=\"refresh\" content=\"{seconds}\">")
    });
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">{refresh}\
         <title>{title}</title><link rel=\"stylesheet\" href=\"/style.css\"></head>\
         <body><nav><a href=\"/\">New game</a> <a href=\"/analysis\">Analyse a game</a> <a href=\"/runs\">Runs</a></nav>\
         <main>{body}</main></body></html>\n",
        title = escape(title)
    )
}

fn team_name(team: Team) -> &'static str {
    match team {
        Team::NorthSouth => "You and North",
        Team::EastWest => "East and West",
    }
}

fn suit_html(suit: Suit) -> String {
    let colour = if matches!(suit, Suit::Hearts | Suit::Diamonds) {
        "red"
    } else {
        "black"
    };
    format!("<span class=\"{colour}\">{}</span>", suit.symbol())
}

/// A card face, not clickable.
pub fn card_html(card: Card) -> String {
    format!(
        "<span class=\"card\" data-card=\"{card}\">{}{}</span>",
        card.rank().word(),
        suit_html(card.suit())
    )
}

/// Cards and suits as the pages draw them: card faces, coloured suits.
#[derive(Debug)]
pub struct Html;

impl Glyphs for Html {
    fn card(&self, card: Card) -> String {
        card_html(card)
    }

    fn suit(&self, suit: Suit) -> String {
        suit_html(suit)
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
pub fn play_page(
    game: &str,
    table: &HumanGame,
    error: Option<&str>,
    hint: Option<&Hint>,
) -> String {
    let mut body = error_banner(error);
    body.push_str(&score_html(table));
    body.push_str(&table_html(table));
    if let Some(summary) = table.summary() {
        body.push_str(&summary_html(game, table, summary));
    } else {
        body.push_str(&hand_html(game, table));
        if let Some(hint) = hint.filter(|_| table.show_hints && table.persons_turn()) {
            body.push_str(&hints_html(table, hint));
        }
    }
    body.push_str(&tools_html(game, table));
    page("Euchre", &body, None)
}

/// The hint bot's judgement of each of the person's legal moves: shown
/// only on their turn and only for their own options.
fn hints_html(table: &HumanGame, hint: &Hint) -> String {
    let mut html = String::from("<section class=\"hints\" id=\"hints\"><h2>Hints</h2><ul>");
    for action in table.state().legal_actions().iter().copied() {
        let note =
            match hint {
                Hint::Values(values) => values.iter().find(|value| value.action == action).map_or(
                    String::new(),
                    |value| {
                        format!(
                            "{:+.2} points per hand (spread {:.2} over {} sampled deals)",
                            value.value, value.spread, value.worlds
                        )
                    },
                ),
                Hint::Chances(chances) => chances
                    .iter()
                    .find(|value| value.action == action)
                    .map_or(String::new(), |value| {
                        format!(
                            "{:.1}% to win the game (spread {:.1} points over {} sampled deals)",
                            100.0 * value.value,
                            100.0 * value.spread,
                            value.worlds
                        )
                    }),
                Hint::Probabilities(probabilities) => probabilities
                    .iter()
                    .find(|(a, _)| *a == action)
                    .map_or(String::new(), |(_, p)| format!("{:.0}%", 100.0 * p)),
                Hint::Choice(choice) if *choice == action => "the bot's choice".to_owned(),
                Hint::Choice(_) => String::new(),
            };
        let shown = match action {
            Action::Discard(card) => format!("discard {}", card_html(card)),
            other => action_text(other),
        };
        let _ = write!(html, "<li data-action=\"{action}\">{shown}: {note}</li>");
    }
    html.push_str("</ul></section>");
    html
}

/// Hints on or off, and the game so far as a file.
fn tools_html(game: &str, table: &HumanGame) -> String {
    let (value, label) = if table.show_hints {
        ("off", "Hide hints")
    } else {
        ("on", "Show hints")
    };
    format!(
        "<div class=\"tools\"><form method=\"post\" action=\"/game/{game}/hints\" class=\"inline\" id=\"hints-toggle\">\
         <input type=\"hidden\" name=\"show\" value=\"{value}\"><button type=\"submit\">{label}</button></form> \
         <a href=\"/game/{game}/game.egn\" id=\"save-egn\" download>Save the game (EGN)</a> \
         <a href=\"/analysis\">Analyse a game</a></div>"
    )
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
    let mut html = String::new();
    let _ = write!(
        html,
        "<section class=\"table\"><p>Dealer: <b id=\"dealer\">{}</b> &middot; upcard {}",
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
    html.push_str(&bids_html(table));
    if state.stage() == Stage::Play {
        html.push_str("<h2>Trick</h2>");
        html.push_str(&trick_html(
            "trick",
            |seat| {
                let trick = state.trick();
                trick.has_played(seat).then(|| trick.cards[seat.index()])
            },
            state_sits_out(table),
        ));
    }
    if let Some((cards, winner)) = table.last_trick() {
        let _ = write!(html, "<h2>Last trick, won by {}</h2>", seat_name(*winner));
        html.push_str(&trick_html(
            "last-trick",
            |seat| cards[seat.index()],
            state_sits_out(table),
        ));
    }
    html.push_str("</section>");
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
fn hand_html(game: &str, table: &HumanGame) -> String {
    let state = table.state();
    let mut html = String::from("<section class=\"hand\"><h2>Your hand</h2><div id=\"hand\">");
    let your_turn = table.persons_turn();
    for card in state.hand(PERSON).iter() {
        let action = if state.stage() == Stage::DealerDiscard {
            Action::Discard(card)
        } else {
            Action::Play(card)
        };
        let label = format!("{}{}", card.rank().word(), suit_html(card.suit()));
        html.push_str(&match table.why_not(action) {
            None => move_button(
                game,
                table.position(),
                action,
                &label,
                "card legal",
                &format!("{action}"),
            ),
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
                html.push_str(&move_button(
                    game,
                    table.position(),
                    action,
                    &action_text(action),
                    "bid",
                    "",
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

/// The start page: choose the bots and the target. `offered` are the bots
/// this server was started with; they and the built-ins are suggested as
/// the user types.
pub fn home_page(
    partner: &str,
    opponents: &str,
    offered: &[String],
    error: Option<&str>,
) -> String {
    let mut body = String::new();
    body.push_str(&error_banner(error));
    let built_ins = SUGGESTED_BUILT_INS
        .iter()
        .filter(|built_in| !offered.iter().any(|label| label == *built_in))
        .map(|built_in| (*built_in).to_owned());
    let options: String = offered
        .iter()
        .cloned()
        .chain(built_ins)
        .map(|choice| format!("<option value=\"{}\">", escape(&choice)))
        .collect();
    let _ = write!(
        body,
        "<h1>Play euchre against the bots</h1>\
         <form method=\"post\" action=\"/games\" id=\"new-game\">\
         <p><label>Your partner <input name=\"partner\" value=\"{}\" size=\"40\" list=\"bots\"></label></p>\
         <p><label>Opponents <input name=\"opponents\" value=\"{}\" size=\"40\" list=\"bots\"></label></p>\
         <datalist id=\"bots\">{options}</datalist>\
         <p><label>Points to win <input name=\"target\" value=\"10\" size=\"4\"></label></p>\
         <p><button type=\"submit\">Deal</button></p></form>\
         <p class=\"help\">Bots: {}, or random, heuristic or pimc:N (N up to {}).</p>",
        escape(partner),
        escape(opponents),
        escape(&offered.join(", ")),
        MAX_CLIENT_PIMC_WORLDS
    );
    page("Euchre", &body, None)
}

/// One section per run directory, refreshed while runs train.
pub fn runs_page(runs: &[(String, Result<String, String>, bool)]) -> String {
    let mut body = String::from("<h1>Training runs</h1>");
    if runs.is_empty() {
        body.push_str("<p>No run directories were given: start the server with --run-dir DIR.</p>");
    }
    for (index, (dir, status, has_curve)) in runs.iter().enumerate() {
        let _ = write!(body, "<section class=\"run\"><h2>{}</h2>", escape(dir));
        match status {
            Ok(text) => {
                let _ = write!(body, "<pre class=\"status\">{}</pre>", escape(text));
            }
            Err(error) => {
                let _ = write!(body, "<p class=\"error\">{}</p>", escape(error));
            }
        }
        if *has_curve {
            let _ = write!(
                body,
                "<img class=\"curve\" src=\"/runs/{index}/curve.svg\" alt=\"learning curve of {}\">",
                escape(dir)
            );
        } else {
            body.push_str("<p>No learning curve yet (train with --eval-every).</p>");
        }
        body.push_str("</section>");
    }
    page("Training runs", &body, Some(30))
}

/// A page for a request the server refuses.
pub fn error_page(title: &str, message: &str) -> String {
    let body = format!(
        "<h1>{}</h1><p class=\"error\" role=\"alert\">{}</p><p><a href=\"/\">Start a new game</a></p>",
        escape(title),
        escape(message)
    );
    page(title, &body, None)
}
