//! The HTML of the analysis pages: the form that takes a game, and the
//! viewer that steps through a deal with each decision marked by its loss.

use euchre_game::egn::hand_number;
use std::collections::HashMap;
use std::fmt::Write as _;

use euchre_bots::analysis::{
    Comment, DealReport, Decision, GameAnalysis, LossUnit, SIGNIFICANCE, Totals,
};
use euchre_game::engine::action::Action;
use euchre_game::engine::card::Card;
use euchre_game::engine::seat::Seat;
use euchre_game::engine::words::action_words;

use super::catalog::{DEFAULT_JUDGE, Level, MAX_CLIENT_PIMC_WORLDS};
use super::pages::{Html, card_html, escape, ladder_options, page};

/// The start of an analysis: upload a file or pick one, choose the bot.
pub(super) fn form_page(files: &[String], ladder: &[Level], error: Option<&str>) -> String {
    let mut body = String::new();
    if let Some(error) = error {
        let _ = write!(
            body,
            "<p class=\"error\" role=\"alert\">{}</p>",
            escape(error)
        );
    }
    body.push_str(
        "<h1>Analyse a game</h1>\
         <p>A game recorded in Euchre Game Notation (an <code>.egn</code> file, from a tracker, a \
         stream's transcript, or a game saved at this table). Every decision with a choice is \
         judged by a bot from the mover's seat: what each legal move is worth in points per hand, \
         and what the move made gave up.</p>\
         <form method=\"post\" action=\"/analysis\" enctype=\"multipart/form-data\" id=\"analyse\">\
         <p><label>Upload a game <input type=\"file\" name=\"file\" accept=\".egn,.json\"></label></p>",
    );
    if !files.is_empty() {
        let options: String = files
            .iter()
            .map(|name| format!("<option value=\"{0}\">{0}</option>", escape(name)))
            .collect();
        let _ = write!(
            body,
            "<p><label>or pick one of this server's <select name=\"pick\"><option value=\"\">(none)</option>{options}</select></label></p>"
        );
    }
    let judges = ladder_options(ladder, DEFAULT_JUDGE);
    let _ = write!(
        body,
        "<p><label>Judged by <select name=\"bot\" id=\"judge\">{judges}</select></label></p>\
         <details><summary>Another judge</summary><p><label>Bot <input name=\"bot_other\" size=\"24\"></label></p>\
         <p class=\"help\">pimc:N (N up to {MAX_CLIENT_PIMC_WORLDS}; pimc:N,game judges in chances of winning the game), or a bot of the list by its bot name.</p></details>\
         <p><button type=\"submit\">Analyse</button></p></form>\
         <p class=\"help\">The PIMC levels and the search bots value every move; a policy gives its \
         probabilities; the heuristic only its choice.</p>"
    );
    page("Analyse a game", &body, None)
}

/// Each player's or team's row; with a twin judge, its summed loss in the
/// other unit in a last column.
fn totals_rows(totals: &[Totals], beside: Option<LossUnit>) -> String {
    totals
        .iter()
        .map(|t| {
            let agree = 100.0 * t.agreed as f64 / t.decisions.max(1) as f64;
            let (mean, total) = if t.valued > 0 {
                (format!("{:.3}", t.mean_loss), format!("{:.2}", t.total_loss))
            } else {
                ("–".to_owned(), "–".to_owned())
            };
            let beside = beside.map_or(String::new(), |unit| {
                format!(
                    "<td>{}</td>",
                    t.beside_total(unit).unwrap_or_else(|| "–".to_owned())
                )
            });
            format!(
                "<tr><td>{}</td><td>{}</td><td>{agree:.0}%</td><td>{mean}</td><td>{total}</td>{beside}</tr>",
                escape(&t.name),
                t.decisions
            )
        })
        .collect()
}

fn mark_class(decision: Option<&Decision>) -> &'static str {
    match decision.and_then(|d| d.mark) {
        Some("blunder") => "mark-blunder",
        Some("mistake") => "mark-mistake",
        Some("dubious") => "mark-dubious",
        _ if decision.is_some_and(|d| d.only_move) => "mark-only",
        _ if decision.is_some_and(|d| d.made != d.preferred) => "mark-differs",
        _ if decision.is_some() => "mark-agrees",
        _ => "mark-none",
    }
}

/// A decision's mark as a chess board writes it on the move: `??`, `?`,
/// `?!` for the bot's marks, `!` for the only good move, `≠` where the
/// bot would have moved otherwise by less than a mark.
fn mark_symbol(decision: Option<&Decision>) -> Option<(&'static str, &'static str)> {
    let decision = decision?;
    match decision.mark {
        Some("blunder") => Some(("??", "blunder")),
        Some("mistake") => Some(("?", "mistake")),
        Some("dubious") => Some(("?!", "dubious")),
        _ if decision.only_move => Some(("!", "the only good move")),
        _ if decision.made != decision.preferred => Some((
            "≠",
            "the bot would have moved otherwise, by less than a mark",
        )),
        _ => None,
    }
}

/// The mark after a move, with its meaning for a screen reader and a
/// pointer.
fn mark_html(decision: Option<&Decision>) -> String {
    mark_symbol(decision).map_or_else(String::new, |(symbol, meaning)| {
        format!("<b class=\"mark\" title=\"{meaning}\">{symbol}</b><span class=\"visually-hidden\"> ({meaning})</span>")
    })
}

/// The action text as cards, where it names one.
fn action_html(text: &str) -> String {
    match text.parse::<Action>() {
        Ok(action) => action_words(action, &Html),
        Err(_) => escape(text),
    }
}

/// The table before action `step` of `deal`: what each seat holds, the
/// bids so far, the trick in play.
struct Table {
    hands: [Option<Vec<Card>>; 4],
    bids: Vec<(usize, String, String)>,
    trick: [Option<Card>; 4],
    last_trick: Option<[Option<Card>; 4]>,
}

fn seat_of(text: &str) -> Seat {
    text.parse().unwrap_or(Seat::North)
}

fn table_at(deal: &DealReport, step: usize) -> Table {
    let mut hands: [Option<Vec<Card>>; 4] = std::array::from_fn(|seat| {
        let cards: Vec<Card> = deal.hands[seat]
            .iter()
            .filter_map(|c| c.parse().ok())
            .collect();
        (!cards.is_empty()).then_some(cards)
    });
    let players = {
        let mut seen = [false; 4];
        for [seat, action] in &deal.actions {
            if action.starts_with("play") {
                seen[seat_of(seat).index()] = true;
            }
        }
        seen.iter().filter(|&&s| s).count().max(1)
    };
    let upcard: Option<Card> = deal.upcard.parse().ok();
    let dealer = seat_of(&deal.dealer);
    let mut table = Table {
        hands: Default::default(),
        bids: Vec::new(),
        trick: [None; 4],
        last_trick: None,
    };
    for (index, [seat, text]) in deal.actions.iter().enumerate().take(step) {
        let seat = seat_of(seat);
        match text.parse::<Action>() {
            Ok(Action::Play(card)) => {
                if let Some(hand) = &mut hands[seat.index()] {
                    hand.retain(|c| *c != card);
                }
                table.trick[seat.index()] = Some(card);
                if table.trick.iter().flatten().count() == players {
                    table.last_trick = Some(table.trick);
                    table.trick = [None; 4];
                }
            }
            Ok(Action::Discard(card)) => {
                if let Some(hand) = &mut hands[seat.index()] {
                    hand.retain(|c| *c != card);
                }
                table.bids.push((index, seat.to_string(), text.clone()));
            }
            Ok(Action::Order { alone }) => {
                let dealer_sits_out = alone && seat.partner() == dealer;
                if let (Some(hand), Some(upcard), false) =
                    (&mut hands[dealer.index()], upcard, dealer_sits_out)
                {
                    hand.push(upcard);
                }
                table.bids.push((index, seat.to_string(), text.clone()));
            }
            _ => table.bids.push((index, seat.to_string(), text.clone())),
        }
    }
    table.hands = hands;
    table
}

fn trick_grid(id: &str, cards: &[Option<Card>; 4]) -> String {
    let mut html = format!("<div class=\"trick\" id=\"{id}\">");
    for seat in Seat::ALL {
        let shown = cards[seat.index()].map_or("&nbsp;".to_owned(), card_html);
        let _ = write!(
            html,
            "<div class=\"at-{}\"><small>{seat}</small><br>{shown}</div>",
            seat.letter().to_ascii_lowercase()
        );
    }
    html.push_str("</div>");
    html
}

/// A column of move values in `unit`, short enough for a phone's width
/// (the key under the players' table says what each counts).
fn value_heading(unit: LossUnit) -> &'static str {
    match unit {
        LossUnit::Points => "points",
        LossUnit::Chance => "to win",
    }
}

/// An annotator's comment: its label, and whether it was said of an
/// alternative line that branches off here rather than of the move played.
fn comment_html(comment: &Comment) -> String {
    let label = comment.label.map_or(String::new(), |l| {
        format!("<span class=\"chip\">{l}</span> ")
    });
    let line = if comment.in_alternative_line {
        "<span class=\"chip\">in an alternative line from here</span> "
    } else {
        ""
    };
    format!(
        "<p class=\"annotation\">{line}{label}{}</p>",
        escape(&comment.text)
    )
}

fn decision_html(decision: &Decision, unit: LossUnit) -> String {
    let mut html = String::from("<section id=\"decision\">");
    let at = decision
        .trick
        .map_or("bidding".to_owned(), |trick| format!("trick {trick}"));
    let _ = write!(
        html,
        "<h2>{} ({}), {at}</h2><p>Made: <b id=\"made\">{}</b> &middot; {}",
        escape(&decision.player),
        decision.seat,
        action_html(&decision.made),
        if decision.made == decision.preferred {
            "as the bot would".to_owned()
        } else {
            format!(
                "the bot: <b id=\"preferred\">{}</b>",
                action_html(&decision.preferred)
            )
        }
    );
    if let Some(loss) = decision.loss {
        let _ = write!(
            html,
            " &middot; loss <b id=\"loss\">{loss:.2}</b> ± {:.2}",
            decision.loss_error.unwrap_or(0.0)
        );
    }
    if let Some(mark) = decision.mark {
        let _ = write!(
            html,
            " <span class=\"chip {}\">{mark}</span>",
            mark_class(Some(decision))
        );
    }
    if let Some(beside) = &decision.beside {
        let preferred = if beside.preferred == decision.preferred {
            String::new()
        } else {
            format!(
                " (there the bot: <b>{}</b>)",
                action_html(&beside.preferred)
            )
        };
        let _ = write!(
            html,
            " &middot; <span id=\"beside-loss\">{}</span>{}{preferred}",
            beside.unit.loss_words(beside.loss, Some(beside.loss_error)),
            beside.mark.map_or(String::new(), |mark| format!(
                " <span class=\"chip\">{mark}</span>"
            ))
        );
    }
    if decision.discards_weighed > 1 {
        let _ = write!(
            html,
            " &middot; the record does not say what the dealer discarded: {} possible discards weighed alike",
            decision.discards_weighed
        );
    }
    let beside_unit = decision.beside.as_ref().map(|beside| beside.unit);
    let _ = write!(
        html,
        "</p><div class=\"wide\" role=\"region\" aria-label=\"Each move's value\" tabindex=\"0\"><table class=\"options\"><tr><th>move</th><th>{}</th><th>spread</th>{}<th>probability</th></tr>",
        value_heading(unit),
        beside_unit.map_or(String::new(), |unit| format!(
            "<th>{}</th>",
            value_heading(unit)
        ))
    );
    for (i, option) in decision.options.iter().enumerate() {
        let class = if option.action == decision.made {
            " class=\"made\""
        } else {
            ""
        };
        let value = option.value.map_or("–".to_owned(), |v| unit.value_short(v));
        let beside = decision.beside.as_ref().map_or(String::new(), |beside| {
            let value = beside
                .values
                .get(i)
                .map_or("–".to_owned(), |&v| beside.unit.value_short(v));
            format!("<td>{value}</td>")
        });
        let spread = option.spread.map_or("–".to_owned(), |v| format!("{v:.2}"));
        let probability = option
            .probability
            .map_or("–".to_owned(), |p| format!("{:.0}%", 100.0 * p));
        let _ = write!(
            html,
            "<tr{class}><td>{}</td><td>{value}</td><td>{spread}</td>{beside}<td>{probability}</td></tr>",
            action_html(&option.action)
        );
    }
    html.push_str("</table></div>");
    if !decision.annotations.is_empty() {
        html.push_str("<div class=\"annotations\"><h3>Annotator</h3>");
        // A record may say the same of two lines that branch off alike.
        let mut shown: Vec<&Comment> = Vec::new();
        for comment in &decision.annotations {
            if !shown.contains(&comment) {
                html.push_str(&comment_html(comment));
                shown.push(comment);
            }
        }
        html.push_str("</div>");
    }
    html.push_str("</section>");
    html
}

/// Where the board is: a deal of the analysis and the action it stands
/// before.
struct At<'a> {
    id: &'a str,
    analysis: &'a GameAnalysis,
    deal_index: usize,
    deal: &'a DealReport,
    step: usize,
    by_index: HashMap<usize, &'a Decision>,
}

impl At<'_> {
    /// A link to another step of this deal, or another deal, scrolled to
    /// the board so that stepping keeps the board in view.
    fn href(&self, deal: usize, step: usize) -> String {
        format!("/analysis/{}?deal={deal}&amp;step={step}#board", self.id)
    }
}

/// One deal of `analysis` at one step: the position and the decision side
/// by side (stacked on a phone), the moves grouped by trick with their
/// marks, the way to every other step and deal, then the players' totals.
pub(super) fn analysis_page(
    id: &str,
    analysis: &GameAnalysis,
    deal_index: usize,
    step: Option<usize>,
) -> String {
    let mut body = header_html(analysis);
    body.push_str(&deals_nav(id, analysis, deal_index));
    let Some(deal) = analysis.deals.get(deal_index) else {
        body.push_str("<p>No deal of this game could be replayed.</p>");
        body.push_str(&players_html(analysis));
        return page("Analysis", &body, None);
    };
    let at = At {
        id,
        analysis,
        deal_index,
        deal,
        step: step.unwrap_or(0).min(deal.actions.len().saturating_sub(1)),
        by_index: deal.decisions.iter().map(|d| (d.index, d)).collect(),
    };
    body.push_str("<div class=\"board\" id=\"board\">");
    body.push_str(&position_html(&at));
    body.push_str("<div class=\"panel\">");
    body.push_str(&stepper_html(&at));
    body.push_str(&step_html(&at));
    body.push_str(&moves_html(&at));
    body.push_str("</div></div>");
    body.push_str(&players_html(analysis));
    body.push_str("<script src=\"/board.js\" defer></script>");
    page(&format!("Analysis: {}", analysis.title), &body, None)
}

/// The title, the judge, and the deals that could not be replayed.
fn header_html(analysis: &GameAnalysis) -> String {
    let decisions: usize = analysis.deals.iter().map(|d| d.decisions.len()).sum();
    let mut html = format!(
        "<h1>{}</h1><p class=\"judged\">Judged by <b>{}</b>: {} hands, {decisions} decisions with a choice, in {:.1} s. \
         Keys: ← → step, ↑ ↓ change hand.</p>",
        escape(&analysis.title),
        escape(&analysis.bot),
        analysis.deals.len(),
        analysis.seconds,
    );
    for refused in &analysis.refused {
        let _ = write!(
            html,
            "<p class=\"error\">Hand {} (dealNumber {}) was not replayed: {}</p>",
            hand_number(refused.deal),
            refused.deal,
            escape(&refused.reason)
        );
    }
    html
}

fn deals_nav(id: &str, analysis: &GameAnalysis, deal_index: usize) -> String {
    let mut html = String::from("<nav class=\"deals\" id=\"deals\" aria-label=\"Hands\">");
    for (index, deal) in analysis.deals.iter().enumerate() {
        let faults = deal.decisions.iter().filter(|d| d.mark.is_some()).count();
        let current = if index == deal_index {
            " current\" aria-current=\"page"
        } else {
            ""
        };
        let _ = write!(
            html,
            "<a class=\"deal{current}\" href=\"/analysis/{id}?deal={index}#board\">hand {}<small> NS {} EW {}{}</small></a> ",
            hand_number(deal.number),
            deal.points[0],
            deal.points[1],
            if faults > 0 {
                format!(" · {faults} marked")
            } else {
                String::new()
            }
        );
    }
    html.push_str("</nav>");
    html
}

/// The table before the current action: each seat's cards, the bids, the
/// trick in play and the last one.
fn position_html(at: &At<'_>) -> String {
    let deal = at.deal;
    let table = table_at(deal, at.step);
    let mut html = format!(
        "<section class=\"position\" id=\"viewer\" aria-label=\"The position\"><h2>Hand {}: dealer {}, upcard {} &middot; points NS {}, EW {}</h2><div class=\"seats\">",
        hand_number(deal.number),
        deal.dealer,
        deal.upcard
            .parse::<Card>()
            .map_or_else(|_| escape(&deal.upcard), card_html),
        deal.points[0],
        deal.points[1]
    );
    for seat in Seat::ALL {
        let cards = match &table.hands[seat.index()] {
            Some(cards) => cards.iter().map(|&c| card_html(c)).collect::<String>(),
            None => "<i>not shown in the record</i>".to_owned(),
        };
        let _ = write!(
            html,
            "<div class=\"seat\" id=\"seat-{}\"><small>{seat}</small> {cards}</div>",
            seat.letter().to_ascii_lowercase()
        );
    }
    html.push_str("</div><h3>Bids</h3><ol class=\"bids\">");
    for (index, seat, text) in &table.bids {
        let decision = at.by_index.get(index).copied();
        let _ = write!(
            html,
            "<li class=\"{}\">{seat}: {}{}</li>",
            mark_class(decision),
            action_html(text),
            mark_html(decision)
        );
    }
    html.push_str("</ol><h3>Trick</h3>");
    html.push_str(&trick_grid("trick", &table.trick));
    if let Some(last_trick) = &table.last_trick {
        html.push_str("<h3>Last trick</h3>");
        html.push_str(&trick_grid("last-trick", last_trick));
    }
    html.push_str("</section>");
    html
}

/// First, previous, next and last move, and the hands before and after:
/// the links the arrow keys follow.
fn stepper_html(at: &At<'_>) -> String {
    let last = at.deal.actions.len().saturating_sub(1);
    let link = |id: &str, label: &str, target: Option<(usize, usize)>| match target {
        Some((deal, step)) => format!(
            "<a id=\"{id}\" href=\"{}\">{label}</a> ",
            at.href(deal, step)
        ),
        None => format!("<span class=\"off\">{label}</span> "),
    };
    let here = at.deal_index;
    let hands = at.analysis.deals.len();
    let mut html = String::from("<p class=\"stepper\" id=\"stepper\">");
    html.push_str(&link(
        "first",
        "« first",
        (at.step > 0).then_some((here, 0)),
    ));
    html.push_str(&link(
        "previous",
        "‹ previous",
        (at.step > 0).then(|| (here, at.step - 1)),
    ));
    html.push_str(&link(
        "next",
        "next ›",
        (at.step < last).then(|| (here, at.step + 1)),
    ));
    html.push_str(&link(
        "last",
        "last »",
        (at.step < last).then_some((here, last)),
    ));
    html.push_str(&link(
        "previous-hand",
        "↑ hand",
        (here > 0).then(|| (here - 1, 0)),
    ));
    html.push_str(&link(
        "next-hand",
        "↓ hand",
        (here + 1 < hands).then(|| (here + 1, 0)),
    ));
    html.push_str("</p>");
    html
}

/// The current action: judged, or why not, with the annotators' comments.
fn step_html(at: &At<'_>) -> String {
    if let Some(decision) = at.by_index.get(&at.step) {
        return decision_html(decision, at.analysis.unit);
    }
    let [seat, text] = &at.deal.actions[at.step];
    let why = at
        .deal
        .skipped
        .iter()
        .find(|s| s.index == at.step)
        .map_or("no choice", |s| s.reason);
    let mut html = format!(
        "<section id=\"decision\"><h2>{seat}: {}</h2><p>Not judged: {why}.</p>",
        action_html(text)
    );
    for (_, comment) in at
        .deal
        .other_annotations
        .iter()
        .filter(|(i, _)| *i == at.step)
    {
        html.push_str(&comment_html(comment));
    }
    html.push_str("</section>");
    html
}

/// Every move of the deal, the bids together and each trick on its own
/// line, each a link with its mark written on it.
fn moves_html(at: &At<'_>) -> String {
    let players = {
        let mut playing = [false; 4];
        for [seat, action] in &at.deal.actions {
            if action.starts_with("play") {
                playing[seat_of(seat).index()] = true;
            }
        }
        playing.iter().filter(|&&p| p).count().max(1)
    };
    let mut html = String::from(
        "<h3>Moves</h3><ol class=\"moves steps\" id=\"steps\"><li><span class=\"phase\">Bids</span> ",
    );
    let mut plays = 0;
    for (index, [seat, text]) in at.deal.actions.iter().enumerate() {
        if text.starts_with("play") {
            if plays % players == 0 {
                let _ = write!(
                    html,
                    "</li><li><span class=\"phase\">Trick {}</span> ",
                    plays / players + 1
                );
            }
            plays += 1;
        }
        let decision = at.by_index.get(&index).copied();
        let current = if index == at.step {
            " current\" aria-current=\"step"
        } else {
            ""
        };
        let _ = write!(
            html,
            "<a class=\"step {}{current}\" href=\"{}\">{seat} {}{}</a> ",
            mark_class(decision),
            at.href(at.deal_index, index),
            action_html(text),
            mark_html(decision)
        );
    }
    html.push_str("</li></ol>");
    html
}

/// Each player's and team's totals, and what the numbers mean.
fn players_html(analysis: &GameAnalysis) -> String {
    format!(
        "<section class=\"players\"><h2>The players</h2>\
         <div class=\"wide\" role=\"region\" aria-label=\"The players' totals\" tabindex=\"0\"><table class=\"players\" id=\"players\"><tr><th scope=\"col\">player</th><th scope=\"col\">decisions</th><th scope=\"col\">agrees with the bot</th><th scope=\"col\">mean loss</th><th scope=\"col\">total loss</th>{}</tr>{}{}</table></div>\
         <p>Loss: the {} the move gave up against the bot's choice, for the mover's side, ± its standard error over the bot's worlds.{} \
         Marks, for a loss over {} standard errors: {}; ! where every other move loses at least a mistake's worth; ≠ where the bot would have moved otherwise, by less than a mark.</p></section>",
        analysis.beside_unit.map_or(String::new(), |unit| format!(
            "<th scope=\"col\">{}</th>",
            unit.total_heading()
        )),
        totals_rows(&analysis.players, analysis.beside_unit),
        totals_rows(&analysis.teams, analysis.beside_unit),
        analysis.unit.describe(),
        analysis.beside_unit.map_or(String::new(), |unit| format!(
            " Beside it, the same judge's loss counted in {} from the same worlds{}.",
            unit.describe(),
            match unit {
                LossUnit::Chance =>
                    ", in deals whose score the record gives (summed, the games given up)",
                LossUnit::Points => "",
            }
        )),
        SIGNIFICANCE,
        analysis
            .unit
            .marks()
            .iter()
            .map(|(threshold, label)| format!(
                "{} {} from {threshold}",
                label.tag().trim_matches(|c| c == '[' || c == ']'),
                label.word()
            ))
            .collect::<Vec<_>>()
            .join(", ")
    )
}
