//! The pieces every page is built from, as strings: the page around a
//! body, cards and suits, escaping, and the runs and error pages. Plain
//! forms and links, so every click is a request the server checks and a
//! reload shows the same page.

use std::fmt::Write as _;

use euchre_game::engine::card::{Card, Suit};
use euchre_game::engine::words::Glyphs;

use super::catalog::Level;

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
pub(super) fn error_banner(error: Option<&str>) -> String {
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

pub(super) fn suit_html(suit: Suit) -> String {
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

/// How often the runs page reloads itself once the person asks it to.
pub const RUNS_REFRESH_SECONDS: u32 = 30;

/// One section per run directory. The page reloads itself only when the
/// person turns that on (and says how to turn it off): a page that moves
/// on its own is a barrier to someone who reads slowly (WCAG 2.2.1).
pub fn runs_page(runs: &[(String, Result<String, String>, bool)], refreshing: bool) -> String {
    let mut body = String::from("<h1>Training runs</h1>");
    if refreshing {
        let _ = write!(
            body,
            "<p id=\"refresh\">This page reloads every {RUNS_REFRESH_SECONDS} s. <a href=\"/runs\">Stop reloading</a></p>"
        );
    } else {
        let _ = write!(
            body,
            "<p id=\"refresh\"><a href=\"/runs\">Reload</a> &middot; <a href=\"/runs?every={RUNS_REFRESH_SECONDS}\">Reload every {RUNS_REFRESH_SECONDS} s while runs train</a></p>"
        );
    }
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
    page(
        "Training runs",
        &body,
        refreshing.then_some(RUNS_REFRESH_SECONDS),
    )
}

/// The ladder as a list's options, `chosen` selected: a level's name and
/// exact bot shown, its choice sent.
pub fn ladder_options(ladder: &[Level], chosen: &str) -> String {
    ladder
        .iter()
        .map(|level| {
            let selected = if level.choice == chosen {
                " selected"
            } else {
                ""
            };
            format!(
                "<option value=\"{}\"{selected}>{}</option>",
                escape(&level.choice),
                escape(&level.shown())
            )
        })
        .collect()
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
