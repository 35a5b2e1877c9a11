//! `trainer analyze`: recorded games (Euchre Game Notation) judged decision
//! by decision by a bot, as a report a player reads or as JSON.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Context;
use euchre_bots::analysis::{GameAnalysis, LossUnit, SIGNIFICANCE, Totals, analyse};
use euchre_bots::bots::policy::Unseen;
use euchre_bots::spec::from_spec;
use euchre_game::egn::{self, hand_number};
use euchre_game::engine::action::Action;

/// The largest game file read: a game of a hundred deals is under 100 KiB.
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

#[derive(Debug)]
pub struct AnalyzeRequest {
    pub files: Vec<PathBuf>,
    pub bot: String,
    pub unseen: Unseen,
    pub seed: u64,
    pub threads: usize,
    pub json: bool,
    /// List every decision, not only those where the bot differs.
    pub all_decisions: bool,
}

/// Reads and checks one game file.
pub fn load(path: &std::path::Path) -> anyhow::Result<egn::Game> {
    let text = store::read_text_bounded(path, MAX_FILE_BYTES).map_err(|error| match error {
        store::RegularFileError::TooLarge { bytes, .. } => anyhow::anyhow!(
            "{} is {bytes} bytes; a game file is at most {MAX_FILE_BYTES} (is it a game record?)",
            path.display()
        ),
        store::RegularFileError::NotText { .. } => anyhow::anyhow!(
            "{} is not UTF-8 text; an EGN file is JSON (a binary .egnb file must first be converted with the EGN project's egn-convert)",
            path.display()
        ),
        other => anyhow::Error::new(other),
    })?;
    egn::read(&text)
        .with_context(|| format!("{} is not a game this reader can replay", path.display()))
}

pub fn run(request: &AnalyzeRequest) -> anyhow::Result<()> {
    anyhow::ensure!(
        !request.files.is_empty(),
        "name at least one .egn file to analyse"
    );
    let threads = crate::config::worker_threads(request.threads);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("starting the analysis threads")?;
    // A file that cannot be read or analysed is reported and skipped: the
    // others are still analysed and printed (in JSON, as an entry with an
    // "error"), and the command then exits non-zero.
    let mut analyses = Vec::new();
    let mut failed: Vec<(String, String)> = Vec::new();
    for path in &request.files {
        let analysed = load(path).and_then(|game| {
            let bot = from_spec(&request.bot, game.rules, request.unseen)
                .with_context(|| format!("building the analysing bot (--bot {})", request.bot))?;
            Ok(pool.install(|| analyse(&game, bot.as_ref(), request.seed)))
        });
        match analysed {
            Ok(analysis) => {
                if !request.json {
                    print!("{}", report(path, &analysis, request.all_decisions));
                }
                analyses.push((path.display().to_string(), analysis));
            }
            Err(error) => {
                if !request.json {
                    eprintln!("error: {error:#}");
                }
                failed.push((path.display().to_string(), format!("{error:#}")));
            }
        }
    }
    if request.json {
        let mut files: Vec<serde_json::Value> = analyses
            .iter()
            .map(|(path, analysis)| {
                let mut value = serde_json::to_value(analysis).unwrap_or_default();
                if let serde_json::Value::Object(map) = &mut value {
                    map.insert("file".into(), path.clone().into());
                }
                value
            })
            .collect();
        files.extend(
            failed
                .iter()
                .map(|(path, error)| serde_json::json!({ "file": path, "error": error })),
        );
        println!("{}", serde_json::to_string_pretty(&files)?);
    } else if analyses.len() > 1 {
        print!("{}", overall(&analyses));
    }
    match failed.as_slice() {
        [] => Ok(()),
        [(_, error)] if request.files.len() == 1 => Err(anyhow::anyhow!("{error}")),
        _ => Err(anyhow::anyhow!(
            "{} of {} files could not be analysed: {}",
            failed.len(),
            request.files.len(),
            failed
                .iter()
                .map(|(path, _)| path.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

fn totals_row(out: &mut String, totals: &Totals, beside: Option<LossUnit>) {
    let agree = 100.0 * totals.agreed as f64 / totals.decisions.max(1) as f64;
    let (mean, total) = if totals.valued > 0 {
        (
            format!("{:.3}", totals.mean_loss),
            format!("{:.2}", totals.total_loss),
        )
    } else {
        ("-".to_owned(), "-".to_owned())
    };
    let beside = beside.map_or(String::new(), |unit| {
        totals.beside_total(unit).unwrap_or_else(|| "-".to_owned())
    });
    let _ = writeln!(
        out,
        "  {:<44} {:>9} {:>7.0}% {:>10} {:>10} {:>11}",
        totals.name, totals.decisions, agree, mean, total, beside
    );
}

/// The terminal report for one game: what was judged and how, the
/// players' totals and the largest losses, then the decisions.
pub fn report(path: &std::path::Path, analysis: &GameAnalysis, all_decisions: bool) -> String {
    let mut out = String::new();
    header(&mut out, path, analysis);
    totals(&mut out, analysis);
    decisions(&mut out, analysis, all_decisions);
    out.push('\n');
    out
}

/// The game, the judge, the time taken and what the losses mean.
fn header(out: &mut String, path: &std::path::Path, analysis: &GameAnalysis) {
    let decisions: usize = analysis.deals.iter().map(|d| d.decisions.len()).sum();
    let _ = writeln!(out, "{} ({})", analysis.title, path.display());
    let _ = writeln!(
        out,
        "analysed by {}; rules: {}",
        analysis.bot, analysis.rules
    );
    let _ = writeln!(
        out,
        "{} deals replayed, {} refused; {decisions} decisions with a choice judged in {:.1} s ({:.0} ms each on average)",
        analysis.deals.len(),
        analysis.refused.len(),
        analysis.seconds,
        1000.0 * analysis.seconds / decisions.max(1) as f64
    );
    let _ = writeln!(
        out,
        "loss: the {} the move gave up against the bot's choice, for the mover's side (± its standard error over the bot's worlds); marks, for a loss over {SIGNIFICANCE} standard errors: {}",
        analysis.unit.describe(),
        analysis
            .unit
            .marks()
            .iter()
            .map(|(threshold, label)| format!("{} {} ≥ {threshold}", label.tag(), label.word()))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if let Some(unit) = analysis.beside_unit {
        let _ = writeln!(
            out,
            "beside it (after ·): the same judge's loss counted in {}, from the same worlds{}",
            unit.describe(),
            match unit {
                LossUnit::Chance => "; in deals whose score the record gives",
                LossUnit::Points => "",
            }
        );
    }
}

/// Each player's and side's totals, the largest losses, the annotators'
/// labels against the judge, and the deals refused.
fn totals(out: &mut String, analysis: &GameAnalysis) {
    let _ = writeln!(
        out,
        "\n  {:<44} {:>9} {:>8} {:>10} {:>10} {:>11}",
        "player",
        "decisions",
        "agree",
        "mean loss",
        "total loss",
        analysis.beside_unit.map_or("", LossUnit::total_heading)
    );
    for totals in analysis.players.iter().chain(&analysis.teams) {
        totals_row(out, totals, analysis.beside_unit);
    }
    if !analysis.largest.is_empty() {
        let _ = writeln!(out, "\nlargest losses");
        for loss in &analysis.largest {
            let trick = loss
                .trick
                .map_or("bidding".to_owned(), |t| format!("trick {t}"));
            let _ = writeln!(
                out,
                "  hand {:>2} {:<8} {:<14} {:<16} bot: {:<16} loss {:.2}{}{}",
                hand_number(loss.deal),
                trick,
                loss.player,
                words(&loss.made),
                words(&loss.preferred),
                loss.loss,
                loss.loss_error
                    .map_or(String::new(), |error| format!(" ± {error:.2}")),
                analysis.beside_unit.zip(loss.beside_loss).map_or(
                    String::new(),
                    |(unit, beside)| format!(" · {}", unit.loss_words(beside, None))
                )
            );
        }
    }
    if !analysis.labels.is_empty() {
        let _ = writeln!(
            out,
            "\nannotators' labels against the bot\n  {:<12} {:>9} {:>11} {:>17} {:>10} {:>17} {:>15}",
            "label",
            "decisions",
            "bot agrees",
            "bot marks fault",
            "mean loss",
            "· marks fault",
            "· mean loss"
        );
        for row in &analysis.labels {
            let beside = analysis.beside_unit.is_some();
            let _ = writeln!(
                out,
                "  {:<12} {:>9} {:>11} {:>17} {:>10} {:>17} {:>15}",
                row.label,
                row.decisions,
                row.bot_agreed,
                row.bot_marked_fault,
                row.mean_loss.map_or("-".to_owned(), |l| format!("{l:.3}")),
                if beside {
                    row.beside_marked_fault.to_string()
                } else {
                    "-".to_owned()
                },
                row.beside_mean_loss
                    .map_or("-".to_owned(), |l| format!("{l:.3}"))
            );
        }
    }
    for refused in &analysis.refused {
        let _ = writeln!(
            out,
            "\nrefused: hand {} (dealNumber {}): {}",
            hand_number(refused.deal),
            refused.deal,
            refused.reason
        );
    }
}

/// The decisions where the judge would have done otherwise (or every one),
/// and every annotated one, with the annotators' comments.
fn decisions(out: &mut String, analysis: &GameAnalysis, all_decisions: bool) {
    let heading = if all_decisions {
        "every decision"
    } else {
        "decisions where the bot would have done otherwise, and those the annotators commented on"
    };
    let _ = writeln!(out, "\n{heading}");
    for deal in &analysis.deals {
        let mut shown = false;
        for decision in &deal.decisions {
            // An annotated decision is shown even where the bot agrees: a
            // reader of an annotated record wants every comment.
            if !all_decisions
                && decision.made == decision.preferred
                && decision.annotations.is_empty()
            {
                continue;
            }
            if !shown && let Some([ns, ew]) = deal.score {
                let _ = writeln!(
                    out,
                    "  hand {} dealt at NS {ns}, EW {ew}",
                    hand_number(deal.number)
                );
            }
            shown = true;
            let at = decision
                .trick
                .map_or("bidding".to_owned(), |trick| format!("trick {trick}"));
            let beside = decision.beside.as_ref();
            let options: Vec<String> = decision
                .options
                .iter()
                .enumerate()
                .map(|(i, option)| match (option.value, option.probability) {
                    (Some(value), _) => format!(
                        "{} {}{}",
                        words(&option.action),
                        analysis.unit.value_short(value),
                        beside
                            .and_then(|beside| Some((beside.unit, *beside.values.get(i)?)))
                            .map_or(String::new(), |(unit, value)| format!(
                                " · {}",
                                unit.value_short(value)
                            ))
                    ),
                    (None, Some(p)) => format!("{} {:.0}%", words(&option.action), 100.0 * p),
                    _ => words(&option.action),
                })
                .collect();
            let loss = decision.loss.map_or(String::new(), |loss| {
                format!(
                    " loss {loss:.2} ± {:.2}",
                    decision.loss_error.unwrap_or(0.0)
                )
            });
            let mark = decision.mark.map_or(String::new(), |m| format!(" ({m})"));
            let beside = beside.map_or(String::new(), |beside| {
                let preferred = if beside.preferred == decision.preferred {
                    String::new()
                } else {
                    format!(", there the bot: {}", words(&beside.preferred))
                };
                format!(
                    " · {}{}{preferred}",
                    beside.unit.loss_words(beside.loss, Some(beside.loss_error)),
                    beside.mark.map_or(String::new(), |m| format!(" ({m})"))
                )
            });
            let _ = writeln!(
                out,
                "  hand {:>2} {:<8} {:<14} {} ; bot: {}{loss}{mark}{beside}\n      {}",
                hand_number(deal.number),
                at,
                format!("{} ({})", decision.player, decision.seat),
                words(&decision.made),
                words(&decision.preferred),
                options.join(", ")
            );
            for comment in &decision.annotations {
                let _ = writeln!(
                    out,
                    "      annotator{}{}: {}",
                    if comment.in_alternative_line {
                        " (in an alternative line from here)"
                    } else {
                        ""
                    },
                    comment.label.map_or(String::new(), |l| format!(" [{l}]")),
                    comment.text
                );
            }
        }
    }
}

/// A move of the analysis (in the notation, as the JSON keeps it) in a
/// player's words.
fn words(notation: &str) -> String {
    notation
        .parse::<Action>()
        .map_or_else(|_| notation.to_owned(), Action::pretty)
}

/// Totals over several files, by player name.
fn overall(analyses: &[(String, GameAnalysis)]) -> String {
    let mut out = String::new();
    let deals: usize = analyses.iter().map(|(_, a)| a.deals.len()).sum();
    let refused: usize = analyses.iter().map(|(_, a)| a.refused.len()).sum();
    let seconds: f64 = analyses.iter().map(|(_, a)| a.seconds).sum();
    let _ = writeln!(
        out,
        "all {} files: {deals} deals replayed, {refused} refused, {seconds:.1} s",
        analyses.len()
    );
    out
}
