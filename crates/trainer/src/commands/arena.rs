//! `trainer arena`: a round robin among named bots on shared duplicate
//! deals ([`euchre_bots::round_robin`]): every pair's match with 95%
//! intervals, Bradley-Terry ratings with intervals, each bot's weakest
//! pairing and its time per decision, as a terminal table, `arena.md` and
//! `ratings.svg` in the arena's directory.
//!
//! The results live in `arena.json` there, written after every piece of
//! every pair, so an interrupted arena resumes where it stopped, and an
//! arena run again with another bot added plays only the new pairs (or,
//! with more hands, only the new deals).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, bail, ensure};
use euchre_bots::arena::run_deals;
use euchre_bots::bot::Bot;
use euchre_bots::bots::policy::Unseen;
use euchre_bots::bots::timed::{DecisionTimes, Timed};
use euchre_bots::round_robin::{
    PairRecord, PairSummary, Rating, deal_points, ratings, summarise_pair, weakest_pairings,
};
use euchre_bots::spec::from_spec;
use euchre_game::engine::rules::Rules;
use plotters::prelude::*;
use serde::{Deserialize, Serialize};

const STATE_FILE: &str = "arena.json";
const REPORT_FILE: &str = "arena.md";
const PLOT_FILE: &str = "ratings.svg";
/// Deals played between saves.
const PIECE: u64 = 250;
/// Resamplings of the deals for the ratings' intervals.
const REPLICATES: usize = 400;
/// An arena file is a few megabytes at most.
const MAX_STATE_BYTES: u64 = 256 << 20;

#[derive(Debug)]
pub struct ArenaRequest {
    /// `NAME=SPEC`, or a spec alone (named by its public label).
    pub bots: Vec<String>,
    pub hands: u64,
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
                });
                self.pairs.len() - 1
            }
        };
        &mut self.pairs[at]
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
    ensure!(
        request.hands >= 2 && request.hands.is_multiple_of(2),
        "--hands {} must be an even number of at least 2: each deal is played twice",
        request.hands
    );
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
    let mut panel = Vec::new();
    let mut bots: BTreeMap<usize, Arc<Timed>> = BTreeMap::new();
    for entry in &entries {
        let index = file.index_of(entry)?;
        ensure!(
            !panel.contains(&index),
            "--bot '{}' is given twice",
            entry.name
        );
        panel.push(index);
        let bot = from_spec(&entry.spec, request.rules, request.unseen)
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
    let deals = request.hands / 2;
    let pairs: Vec<(usize, usize)> = panel
        .iter()
        .enumerate()
        .flat_map(|(i, &a)| panel[i + 1..].iter().map(move |&b| (a, b)))
        .collect();
    let started = Instant::now();
    for &(a, b) in &pairs {
        let (a_bot, b_bot): (Arc<dyn Bot>, Arc<dyn Bot>) = (bots[&a].clone(), bots[&b].clone());
        loop {
            let done = file.pair_mut(a, b).deals.len() as u64;
            if done >= deals {
                break;
            }
            let end = (done + PIECE).min(deals);
            eprintln!(
                "{} vs {}: deals {}..{} of {deals} ({:.0} s so far)",
                file.bots[a].name,
                file.bots[b].name,
                done,
                end,
                started.elapsed().as_secs_f64()
            );
            let results = pool.install(|| {
                run_deals(
                    &a_bot,
                    &b_bot,
                    request.rules,
                    done..end,
                    request.seed,
                    &|| {},
                )
            });
            file.pair_mut(a, b)
                .deals
                .extend(results.iter().map(deal_points));
            file.save(&request.dir)?;
        }
    }
    let report = Report::new(&file, &panel, deals as usize, &bots, request);
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
    ratings: Vec<Rating>,
    weakest: Vec<Option<(usize, f64)>>,
    times: Vec<DecisionTimes>,
    hands: u64,
    seed: u64,
}

impl Report {
    fn new(
        file: &ArenaFile,
        panel: &[usize],
        deals: usize,
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
                    deals: pair.deals[..deals.min(pair.deals.len())].to_vec(),
                })
            })
            .collect();
        let summaries: Vec<PairSummary> = pairs
            .iter()
            .map(|pair| summarise_pair(pair, deals))
            .collect();
        Report {
            names: panel.iter().map(|&i| file.bots[i].name.clone()).collect(),
            specs: panel.iter().map(|&i| file.bots[i].spec.clone()).collect(),
            ratings: ratings(panel.len(), &pairs, deals, REPLICATES, request.seed),
            weakest: weakest_pairings(panel.len(), &summaries),
            summaries,
            times: panel.iter().map(|i| bots[i].times()).collect(),
            hands: 2 * deals as u64,
            seed: request.seed,
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
            "{} bots, {} hands a pair on shared duplicate deals (seed {})\n",
            self.names.len(),
            self.hands,
            self.seed
        );
        let _ = writeln!(
            out,
            "{:<w$}  {:<w$}  {:>17}  {:>15}",
            "A",
            "B",
            "A - B a hand",
            "A's share",
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
            "\nrating: the share of the points taken from a bot of the panel's average strength (Bradley-Terry, 95% interval over deals)"
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
            "# Arena: {} bots, {} hands a pair, seed {}\n",
            self.names.len(),
            self.hands,
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
            "\n| A | B | A − B a hand | A's share |\n|---|---|---|---|"
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
            "\nRating: the share of the points a bot takes from a bot of the panel's average strength (Bradley-Terry on points, 95% interval from {REPLICATES} resamplings of the deals).\n"
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
                    format!(
                        "share against the panel's average bot ({} hands a pair)",
                        self.hands
                    ),
                    ("sans-serif", 18),
                )
                .margin(12)
                .x_label_area_size(36)
                .y_label_area_size(180)
                .build_cartesian_2d(100.0 * low..100.0 * high, -0.5..rows - 0.5)?;
            let names: Vec<String> = order.iter().map(|&bot| self.names[bot].clone()).collect();
            chart
                .configure_mesh()
                .x_desc("% of the points")
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
