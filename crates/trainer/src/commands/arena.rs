//! `trainer arena`: a round robin among named bots on shared duplicate
//! deals, or shared duplicate games to a target in which every bot sees the
//! score ([`euchre_bots::round_robin`]): every pair's match with 95%
//! intervals, Bradley-Terry ratings with intervals, each bot's weakest
//! pairing and its time per decision, as a terminal table, `arena.md` and
//! `ratings.svg` in the arena's directory.
//!
//! The results live in `arena.json` there, written after every piece of
//! every pair, so an interrupted arena resumes where it stopped, and an
//! arena run again with another bot added plays only the new pairs (or,
//! with more hands or games, only the new ones). Hands and games of one
//! panel live side by side in the same file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, bail, ensure};
use euchre_bots::arena::run_deals;
use euchre_bots::bot::Bot;
use euchre_bots::bots::policy::Unseen;
use euchre_bots::bots::timed::{DecisionTimes, Timed};
use euchre_bots::games::by_score::OutcomesByScore;
use euchre_bots::games::run_games_by_score;
use euchre_bots::round_robin::{
    GAMES_PRIOR, PairRecord, PairSummary, PairWins, REPLICATES, Rating, deal_points, ratings,
    summarise_pair, summarise_pair_games, weakest_pairings,
};
use euchre_bots::spec::{LoadedPolicies, from_spec_sharing};
use euchre_game::engine::rules::Rules;
use plotters::prelude::*;
use serde::{Deserialize, Serialize};

const STATE_FILE: &str = "arena.json";
const REPORT_FILE: &str = "arena.md";
const PLOT_FILE: &str = "ratings.svg";
/// Deals played between saves.
const PIECE: u64 = 250;
/// Pairs of games played between saves (a game is about ten deals).
const GAMES_PIECE: u64 = 25;
/// An arena file is a few megabytes at most.
const MAX_STATE_BYTES: u64 = 256 << 20;

/// What each pair of an arena plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Play {
    /// This many hands: each deal twice, the seats swapped.
    Hands(u64),
    /// This many duplicate games to `target` points: each game's sequence
    /// of deals played twice, the seats swapped (twice as many games).
    Games { games: u64, target: u8 },
}

#[derive(Debug)]
pub struct ArenaRequest {
    /// `NAME=SPEC`, or a spec alone (named by its public label).
    pub bots: Vec<String>,
    pub play: Play,
    pub seed: u64,
    pub dir: PathBuf,
    pub threads: usize,
    pub rules: Rules,
    pub unseen: Unseen,
}

/// A bot of the panel, as the arena file records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Entry {
    name: String,
    spec: String,
}

/// What `arena.json` holds.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ArenaFile {
    version: u32,
    seed: u64,
    rules: Rules,
    /// The points that win its games, once it has played any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    target: Option<u8>,
    bots: Vec<Entry>,
    pairs: Vec<PairRecord>,
}

impl ArenaFile {
    fn load(dir: &Path, seed: u64, rules: Rules) -> anyhow::Result<ArenaFile> {
        let path = dir.join(STATE_FILE);
        if !path.exists() {
            return Ok(ArenaFile {
                version: 1,
                seed,
                rules,
                target: None,
                bots: Vec::new(),
                pairs: Vec::new(),
            });
        }
        let text = store::read_text_bounded(&path, MAX_STATE_BYTES)?;
        let file: ArenaFile = serde_json::from_str(&text).with_context(|| {
            format!(
                "{} is not an arena file this trainer wrote; use another --dir",
                path.display()
            )
        })?;
        ensure!(
            file.seed == seed,
            "{} holds an arena played on the deals of seed {}; to add to it use --seed {}, or use another --dir",
            dir.display(),
            file.seed,
            file.seed
        );
        ensure!(
            file.rules == rules,
            "{} holds an arena played under other rules ({:?}); to add to it use the same --config, or use another --dir",
            dir.display(),
            file.rules
        );
        for pair in &file.pairs {
            ensure!(
                pair.a < file.bots.len() && pair.b < file.bots.len() && pair.a != pair.b,
                "{} names a pair of bots it does not list; use another --dir",
                path.display()
            );
        }
        Ok(file)
    }

    /// The panel index of `entry`, adding it if new; a name already used
    /// for another spec is refused.
    fn index_of(&mut self, entry: &Entry) -> anyhow::Result<usize> {
        if let Some(index) = self.bots.iter().position(|bot| bot.name == entry.name) {
            if self.bots[index].spec != entry.spec {
                bail!(
                    "this arena already has a bot named '{}' ({}); name '{}' otherwise",
                    entry.name,
                    self.bots[index].spec,
                    entry.spec
                );
            }
            return Ok(index);
        }
        self.bots.push(entry.clone());
        Ok(self.bots.len() - 1)
    }

    /// The pair of `a` and `b` in the orientation the file holds it, if it
    /// holds it at all: a panel that lists two bots the other way round
    /// plays on their record rather than beginning a second one.
    fn oriented(&self, a: usize, b: usize) -> (usize, usize) {
        if self.pairs.iter().any(|pair| (pair.a, pair.b) == (b, a)) {
            (b, a)
        } else {
            (a, b)
        }
    }

    fn pair_mut(&mut self, a: usize, b: usize) -> &mut PairRecord {
        let at = match self
            .pairs
            .iter()
            .position(|pair| (pair.a, pair.b) == (a, b))
        {
            Some(at) => at,
            None => {
                self.pairs.push(PairRecord {
                    a,
                    b,
                    deals: Vec::new(),
                    games: Vec::new(),
                    games_by_score: Default::default(),
                });
                self.pairs.len() - 1
            }
        };
        &mut self.pairs[at]
    }

    /// Records that this arena's games are played to `target`, refusing
    /// games to another target beside them.
    fn play_games_to(&mut self, target: u8, dir: &Path) -> anyhow::Result<()> {
        match self.target {
            Some(played) if played != target => bail!(
                "{} holds games played to {played} points; to add to them use --target {played}, or use another --dir",
                dir.display()
            ),
            _ => self.target = Some(target),
        }
        Ok(())
    }

    /// How many units (deals, or pairs of games) the pair has played.
    fn played(&mut self, a: usize, b: usize, play: Play) -> u64 {
        let pair = self.pair_mut(a, b);
        match play {
            Play::Hands(_) => pair.deals.len() as u64,
            Play::Games { .. } => pair.games.len() as u64,
        }
    }

    fn save(&self, dir: &Path) -> anyhow::Result<()> {
        let text = serde_json::to_vec(self).context("encoding the arena")?;
        store::write_atomically(&dir.join(STATE_FILE), &text)?;
        Ok(())
    }
}

/// `NAME=SPEC`, or a spec named by its label with paths cut to file names.
fn entry(text: &str) -> anyhow::Result<Entry> {
    let (name, spec) = match text.split_once('=') {
        Some((name, spec)) if !name.is_empty() && !name.contains(':') => (name, spec),
        _ => ("", text),
    };
    ensure!(
        !spec.is_empty(),
        "--bot '{text}' names no bot: give NAME=SPEC, such as pimc50=pimc:50"
    );
    let name = if name.is_empty() {
        crate::serve::catalog::public_label(spec)
    } else {
        name.to_owned()
    };
    Ok(Entry {
        name,
        spec: spec.to_owned(),
    })
}

pub fn run(request: &ArenaRequest) -> anyhow::Result<()> {
    // Deals, or pairs of games: what one index of the shared sequence is.
    let units = match request.play {
        Play::Hands(hands) => {
            ensure!(
                hands >= 2 && hands.is_multiple_of(2),
                "--hands {hands} must be an even number of at least 2: each deal is played twice"
            );
            hands / 2
        }
        Play::Games { games, .. } => {
            ensure!(
                games >= 2,
                "--games {games} is too few for an interval: give at least 2 (each is played twice, seats swapped)"
            );
            games
        }
    };
    let entries = request
        .bots
        .iter()
        .map(|text| entry(text))
        .collect::<anyhow::Result<Vec<_>>>()?;
    ensure!(
        entries.len() >= 2,
        "an arena needs at least two bots: give --bot twice or more"
    );
    std::fs::create_dir_all(&request.dir)
        .with_context(|| format!("cannot make {}", request.dir.display()))?;
    for name in [STATE_FILE, REPORT_FILE, PLOT_FILE] {
        // Said before the first match, not after the last.
        store::check_writable(&request.dir.join(name))?;
    }
    let mut file = ArenaFile::load(&request.dir, request.seed, request.rules)?;
    if let Play::Games { target, .. } = request.play {
        file.play_games_to(target, &request.dir)?;
    }
    let mut panel = Vec::new();
    let mut bots: BTreeMap<usize, Arc<Timed>> = BTreeMap::new();
    // Members over one run share its files: loaded once, not once a bot.
    let loaded = LoadedPolicies::default();
    for entry in &entries {
        let index = file.index_of(entry)?;
        ensure!(
            !panel.contains(&index),
            "--bot '{}' is given twice",
            entry.name
        );
        panel.push(index);
        let bot = from_spec_sharing(&entry.spec, request.rules, request.unseen, &loaded)
            .with_context(|| format!("building the bot '{}' ({})", entry.name, entry.spec))?;
        for warning in bot.warnings() {
            eprintln!("warning: {}: {warning}", entry.name);
        }
        bots.insert(index, Arc::new(Timed::new(bot)));
    }
    file.save(&request.dir)?;
    let threads = crate::config::worker_threads(request.threads);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("starting the arena's threads")?;
    let pairs: Vec<(usize, usize)> = panel
        .iter()
        .enumerate()
        .flat_map(|(i, &a)| panel[i + 1..].iter().map(move |&b| (a, b)))
        .collect();
    let started = Instant::now();
    for &(a, b) in &pairs {
        let (a, b) = file.oriented(a, b);
        let (a_bot, b_bot): (Arc<dyn Bot>, Arc<dyn Bot>) = (bots[&a].clone(), bots[&b].clone());
        loop {
            let done = file.played(a, b, request.play);
            if done >= units {
                break;
            }
            let (piece, what) = match request.play {
                Play::Hands(_) => (PIECE, "deals"),
                Play::Games { .. } => (GAMES_PIECE, "games' sequences of deals"),
            };
            let end = (done + piece).min(units);
            eprintln!(
                "{} vs {}: {what} {done}..{end} of {units} ({:.0} s so far)",
                file.bots[a].name,
                file.bots[b].name,
                started.elapsed().as_secs_f64()
            );
            let (rules, seed) = (request.rules, request.seed);
            let record = match request.play {
                Play::Hands(_) => {
                    let results =
                        pool.install(|| run_deals(&a_bot, &b_bot, rules, done..end, seed, &|| {}));
                    let record = file.pair_mut(a, b);
                    record.deals.extend(results.iter().map(deal_points));
                    record
                }
                Play::Games { target, .. } => {
                    let (games, by_score) = pool.install(|| {
                        run_games_by_score(&a_bot, &b_bot, rules, target, done..end, seed, &|| {})
                    });
                    let record = file.pair_mut(a, b);
                    record.games.extend(games);
                    record.games_by_score = record.games_by_score.clone().merge(&by_score);
                    record
                }
            };
            debug_assert_eq!(record.a, a);
            file.save(&request.dir)?;
        }
    }
    let report = Report::new(&file, &panel, units as usize, &bots, request);
    print!("{}", report.text());
    store::write_atomically(&request.dir.join(REPORT_FILE), report.markdown().as_bytes())?;
    report.plot(&request.dir.join(PLOT_FILE))?;
    println!(
        "\nwritten: {}, {}, {}",
        request.dir.join(STATE_FILE).display(),
        request.dir.join(REPORT_FILE).display(),
        request.dir.join(PLOT_FILE).display()
    );
    Ok(())
}

/// What an arena found, over its panel's pairs.
struct Report {
    names: Vec<String>,
    specs: Vec<String>,
    /// By position in the panel.
    summaries: Vec<PairSummary>,
    /// Each pair's hands by the score they were dealt at, where it played
    /// games (over every game it has played).
    by_score: Vec<(usize, usize, OutcomesByScore)>,
    ratings: Vec<Rating>,
    weakest: Vec<Option<(usize, f64)>>,
    times: Vec<DecisionTimes>,
    /// What each pair played: hands or games, and how many.
    play: Play,
    seed: u64,
}

impl Report {
    fn new(
        file: &ArenaFile,
        panel: &[usize],
        units: usize,
        bots: &BTreeMap<usize, Arc<Timed>>,
        request: &ArenaRequest,
    ) -> Report {
        // The panel's own numbering, 0.., for the rating code.
        let position = |index: usize| panel.iter().position(|&p| p == index);
        let pairs: Vec<PairRecord> = file
            .pairs
            .iter()
            .filter_map(|pair| {
                Some(PairRecord {
                    a: position(pair.a)?,
                    b: position(pair.b)?,
                    ..pair.clone()
                })
            })
            .collect();
        let (summaries, wins): (Vec<PairSummary>, Vec<PairWins>) = pairs
            .iter()
            .map(|pair| match request.play {
                Play::Hands(_) => (summarise_pair(pair, units), pair.deal_wins(units)),
                Play::Games { .. } => (summarise_pair_games(pair, units), pair.game_wins(units)),
            })
            .unzip();
        Report {
            names: panel.iter().map(|&i| file.bots[i].name.clone()).collect(),
            specs: panel.iter().map(|&i| file.bots[i].spec.clone()).collect(),
            ratings: ratings(
                panel.len(),
                &wins,
                units,
                REPLICATES,
                request.seed,
                match request.play {
                    Play::Hands(_) => 0.0,
                    Play::Games { .. } => GAMES_PRIOR,
                },
            ),
            weakest: weakest_pairings(panel.len(), &summaries),
            summaries,
            by_score: match request.play {
                Play::Hands(_) => Vec::new(),
                Play::Games { .. } => pairs
                    .iter()
                    .map(|pair| (pair.a, pair.b, pair.games_by_score.clone()))
                    .collect(),
            },
            times: panel.iter().map(|i| bots[i].times()).collect(),
            play: request.play,
            seed: request.seed,
        }
    }

    /// What each pair played, for a heading.
    fn played(&self) -> String {
        match self.play {
            Play::Hands(hands) => format!("{hands} hands a pair on shared duplicate deals"),
            Play::Games { games, target } => format!(
                "{} games to {target} a pair ({games} shared sequences of deals, each played twice with the seats swapped; every bot sees the score)",
                2 * games
            ),
        }
    }

    /// What the ratings resample.
    fn units_word(&self) -> &'static str {
        match self.play {
            Play::Hands(_) => "deals",
            Play::Games { .. } => "sequences of deals",
        }
    }

    /// What a rating is.
    fn rating_meaning(&self) -> &'static str {
        match self.play {
            Play::Hands(_) => {
                "the share of the points a bot takes from a bot of the panel's average strength"
            }
            Play::Games { .. } => {
                "the share of the games a bot wins against a bot of the panel's average strength (a game won each way added to every pair, so that a bot that never won is still rated)"
            }
        }
    }

    /// What a share is of.
    fn of_what(&self) -> &'static str {
        match self.play {
            Play::Hands(_) => "points",
            Play::Games { .. } => "games won",
        }
    }

    /// Ratings best first, as panel positions.
    fn order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.names.len()).collect();
        order.sort_by(|&x, &y| self.ratings[y].share.total_cmp(&self.ratings[x].share));
        order
    }

    fn text(&self) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let width = self.names.iter().map(String::len).max().unwrap_or(4).max(4);
        let _ = writeln!(
            out,
            "{} bots, {} (seed {})\n",
            self.names.len(),
            self.played(),
            self.seed
        );
        let share_heading = match self.play {
            Play::Hands(_) => "A's share",
            Play::Games { .. } => "A's games",
        };
        let _ = writeln!(
            out,
            "{:<w$}  {:<w$}  {:>17}  {:>15}",
            "A",
            "B",
            "A - B a hand",
            share_heading,
            w = width
        );
        for s in &self.summaries {
            let _ = writeln!(
                out,
                "{:<w$}  {:<w$}  {:>+8.3} ± {:.3}  {:>6.1}% ± {:.1}",
                self.names[s.a],
                self.names[s.b],
                s.net_per_hand,
                s.net_interval,
                100.0 * s.share,
                100.0 * s.share_interval,
                w = width
            );
        }
        let _ = writeln!(
            out,
            "\nrating: {} (Bradley-Terry, 95% interval over {})",
            self.rating_meaning(),
            self.units_word()
        );
        let _ = writeln!(
            out,
            "{:<w$}  {:>21}  {:<w$}  {:>7}  {:>9}  {:>9}",
            "bot",
            "rating",
            "weakest vs",
            "share",
            "median ms",
            "p99 ms",
            w = width
        );
        for bot in self.order() {
            let rating = &self.ratings[bot];
            let (weakest, share) = self.weakest[bot]
                .map_or(("-".to_owned(), String::new()), |(other, share)| {
                    (self.names[other].clone(), format!("{:.1}%", 100.0 * share))
                });
            let times = &self.times[bot];
            let (median, p99) = if times.decisions > 0 {
                (
                    format!("{:.2}", times.median_ms),
                    format!("{:.2}", times.p99_ms),
                )
            } else {
                ("-".to_owned(), "-".to_owned())
            };
            let _ = writeln!(
                out,
                "{:<w$}  {:>6.1}% ({:>5.1}-{:>5.1})  {:<w$}  {:>7}  {:>9}  {:>9}",
                self.names[bot],
                100.0 * rating.share,
                100.0 * rating.low,
                100.0 * rating.high,
                weakest,
                share,
                median,
                p99,
                w = width
            );
        }
        out
    }

    fn markdown(&self) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# Arena: {} bots, {}, seed {}\n",
            self.names.len(),
            self.played(),
            self.seed
        );
        let _ = writeln!(out, "| bot | spec |\n|---|---|");
        for (name, spec) in self.names.iter().zip(&self.specs) {
            let _ = writeln!(
                out,
                "| {} | `{}` |",
                cell(name),
                cell(&crate::serve::catalog::public_label(spec))
            );
        }
        let _ = writeln!(
            out,
            "\n| A | B | A − B a hand | A's share of the {} |\n|---|---|---|---|",
            self.of_what()
        );
        for s in &self.summaries {
            let _ = writeln!(
                out,
                "| {} | {} | {:+.3} ± {:.3} | {:.1}% ± {:.1} |",
                cell(&self.names[s.a]),
                cell(&self.names[s.b]),
                s.net_per_hand,
                s.net_interval,
                100.0 * s.share,
                100.0 * s.share_interval
            );
        }
        let _ = writeln!(
            out,
            "\nRating: {} (Bradley-Terry on {}, 95% interval from {REPLICATES} resamplings of the {}).\n",
            self.rating_meaning(),
            self.of_what(),
            self.units_word()
        );
        let _ = writeln!(
            out,
            "| bot | rating | weakest pairing | median ms a decision | p99 ms |\n|---|---|---|---|---|"
        );
        for bot in self.order() {
            let rating = &self.ratings[bot];
            let weakest = self.weakest[bot].map_or("-".to_owned(), |(other, share)| {
                format!("{} ({:.1}%)", cell(&self.names[other]), 100.0 * share)
            });
            let times = &self.times[bot];
            let time = |ms: f64| {
                if times.decisions > 0 {
                    format!("{ms:.2}")
                } else {
                    "-".to_owned()
                }
            };
            let _ = writeln!(
                out,
                "| {} | {:.1}% ({:.1}–{:.1}) | {weakest} | {} | {} |",
                cell(&self.names[bot]),
                100.0 * rating.share,
                100.0 * rating.low,
                100.0 * rating.high,
                time(times.median_ms),
                time(times.p99_ms)
            );
        }
        if !self.by_score.is_empty() {
            let _ = writeln!(
                out,
                "\n## Each side's bids by where its game stood\n\nHow often a side made trump and went alone (of its hands in the band: both five or more points to go, neither within two, within two of winning, the other side within two, both within two), and how many of its contracts marched or were euchred, over every game the pair has played.\n"
            );
        }
        for (a, b, outcomes) in &self.by_score {
            let _ = writeln!(
                out,
                "### {} against {}\n\n```\n{}```",
                cell(&self.names[*a]),
                cell(&self.names[*b]),
                outcomes.table([&self.names[*a], &self.names[*b]])
            );
        }
        out
    }

    /// Each bot's rating with its interval, best at the top; drawn in
    /// memory and written as every user's file is ([`store::write_atomically`]).
    fn plot(&self, path: &Path) -> anyhow::Result<()> {
        let order = self.order();
        let mut svg = String::new();
        let mut draw = || -> Result<(), Box<dyn std::error::Error>> {
            let height = 120 + 40 * order.len() as u32;
            let root = SVGBackend::with_string(&mut svg, (800, height)).into_drawing_area();
            root.fill(&WHITE)?;
            let low = self.ratings.iter().map(|r| r.low).fold(0.5, f64::min) - 0.01;
            let high = self.ratings.iter().map(|r| r.high).fold(0.5, f64::max) + 0.01;
            let rows = order.len() as f64;
            let mut chart = ChartBuilder::on(&root)
                .caption(
                    match self.play {
                        Play::Hands(hands) => {
                            format!("share against the panel's average bot ({hands} hands a pair)")
                        }
                        Play::Games { games, target } => format!(
                            "games won against the panel's average bot ({} games to {target} a pair)",
                            2 * games
                        ),
                    },
                    ("sans-serif", 18),
                )
                .margin(12)
                .x_label_area_size(36)
                .y_label_area_size(180)
                .build_cartesian_2d(100.0 * low..100.0 * high, -0.5..rows - 0.5)?;
            let names: Vec<String> = order.iter().map(|&bot| self.names[bot].clone()).collect();
            chart
                .configure_mesh()
                .x_desc(format!("% of the {}", self.of_what()))
                .y_labels(order.len())
                .y_label_formatter(&|y| {
                    let row = y.round();
                    if (y - row).abs() < 1e-6 && row >= 0.0 && (row as usize) < names.len() {
                        names[names.len() - 1 - row as usize].clone()
                    } else {
                        String::new()
                    }
                })
                .draw()?;
            chart.draw_series(LineSeries::new([(50.0, -0.5), (50.0, rows - 0.5)], &BLACK))?;
            for (rank, &bot) in order.iter().enumerate() {
                let y = rows - 1.0 - rank as f64;
                let rating = &self.ratings[bot];
                chart.draw_series(LineSeries::new(
                    [(100.0 * rating.low, y), (100.0 * rating.high, y)],
                    BLUE.stroke_width(2),
                ))?;
                chart.draw_series([Circle::new((100.0 * rating.share, y), 4, BLUE.filled())])?;
            }
            root.present()?;
            Ok(())
        };
        draw().map_err(|error| anyhow::anyhow!("cannot draw {}: {error}", path.display()))?;
        store::write_atomically(path, svg.as_bytes())?;
        Ok(())
    }
}

/// Text for one cell of a Markdown table: a `|` would end the cell (and a
/// line break the row), so a bot named with either cannot break the table.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_is_the_same_pair_whichever_way_round_a_panel_lists_it() {
        let mut file = ArenaFile {
            version: 1,
            seed: 1,
            rules: Rules::default(),
            target: None,
            bots: Vec::new(),
            pairs: Vec::new(),
        };
        file.pair_mut(3, 5).deals.push([[1, 0], [0, 2]]);
        assert_eq!(file.oriented(5, 3), (3, 5));
        assert_eq!(file.oriented(3, 5), (3, 5));
        assert_eq!(
            file.oriented(5, 4),
            (5, 4),
            "a new pair keeps the panel's order"
        );
        let (a, b) = file.oriented(5, 3);
        assert_eq!(file.played(a, b, Play::Hands(2)), 1);
        assert_eq!(
            file.pairs.len(),
            1,
            "no second record for the same two bots"
        );
    }

    #[test]
    fn a_bar_or_a_line_break_in_a_name_stays_inside_its_markdown_cell() {
        assert_eq!(cell("a|b"), "a\\|b");
        assert_eq!(cell("two\nlines"), "two lines");
        assert_eq!(cell("pimc:50"), "pimc:50");
    }

    #[test]
    fn bots_are_named_or_labelled() {
        assert_eq!(
            entry("p50=pimc:50").unwrap(),
            Entry {
                name: "p50".into(),
                spec: "pimc:50".into()
            }
        );
        assert_eq!(entry("pimc:50").unwrap().name, "pimc:50");
        assert_eq!(
            entry("policy-argmax:/x/runs/a/policy.bin").unwrap().name,
            "policy-argmax:policy.bin"
        );
        assert!(entry("p=").is_err());
    }
}
