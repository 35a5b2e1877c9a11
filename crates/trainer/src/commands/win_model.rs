//! `trainer win-model`: the chance of winning a game from every score and
//! dealer, solved exactly from how often a bot's hands score each way
//! against itself ([`euchre_game::game::win`]).

use std::fmt::Write as _;
use std::sync::Arc;

use anyhow::{Context, ensure};
use euchre_bots::bot::Bot;
use euchre_bots::game_outcomes::self_play_outcomes;
use euchre_bots::spec::from_spec;
use euchre_game::engine::rules::Rules;
use euchre_game::game::win::{GAINS, HandOutcomes, WinModel};
use indicatif::ProgressBar;

use crate::training::terminal::set_template;

#[derive(Debug)]
pub struct WinModelRequest {
    pub bot: String,
    pub hands: u64,
    pub seed: u64,
    pub target: u8,
    pub threads: usize,
    pub rules: Rules,
    pub unseen: euchre_bots::bots::policy::Unseen,
}

pub fn run(request: &WinModelRequest) -> anyhow::Result<()> {
    ensure!(request.hands >= 1, "--hands must be at least 1");
    let bot: Arc<dyn Bot> =
        from_spec(&request.bot, request.rules, request.unseen).context("building --bot")?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(request.threads)
        .build()
        .context("starting the thread pool")?;
    let bar = ProgressBar::new(request.hands);
    set_template(&bar, "{bar:40} {pos}/{len} hands, {eta} left");
    let outcomes = pool.install(|| {
        self_play_outcomes(&bot, request.rules, request.hands, request.seed, &|| {
            bar.inc(1);
        })
    })?;
    bar.finish_and_clear();
    let model = WinModel::new(request.target, &outcomes)?;
    print!("{}", report(&outcomes, &model));
    Ok(())
}

/// The outcomes and the two tables of chances, as printed.
pub fn report(outcomes: &HandOutcomes, model: &WinModel) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "hand outcomes: {}", outcomes.source);
    let _ = writeln!(
        out,
        "  the dealer's side scores 1 / 2 / 4: {}",
        percents(&outcomes.dealers)
    );
    let _ = writeln!(
        out,
        "  the other side scores 1 / 2 / 4:    {}",
        percents(&outcomes.others)
    );
    let _ = writeln!(
        out,
        "  passed out: {:.1}%; the dealer's side's edge: {:+.3} points a hand",
        100.0 * outcomes.nothing,
        outcomes.dealers_edge()
    );
    debug_assert_eq!(GAINS, [1, 2, 4]);
    let target = model.target();
    for (we_deal, title) in [
        (true, "your side deals next"),
        (false, "the other side deals next"),
    ] {
        let _ = writeln!(
            out,
            "\nchance (%) that your side wins a game to {target}, {title}: rows your points, columns theirs"
        );
        let _ = write!(out, "{:>4}", "");
        for them in 0..target {
            let _ = write!(out, "{them:>6}");
        }
        let _ = writeln!(out);
        for us in 0..target {
            let _ = write!(out, "{us:>4}");
            for them in 0..target {
                let _ = write!(out, "{:>6.1}", 100.0 * model.chance_at(us, them, we_deal));
            }
            let _ = writeln!(out);
        }
    }
    out
}

fn percents(values: &[f64; 3]) -> String {
    values
        .iter()
        .map(|p| format!("{:.1}%", 100.0 * p))
        .collect::<Vec<_>>()
        .join(" / ")
}
