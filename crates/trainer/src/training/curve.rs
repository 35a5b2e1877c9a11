//! Learning curves: a run measures itself while it trains.
//!
//! Every `every` of training time (the run's own clock, which excludes
//! building the store and the measurements themselves, and continues
//! across resumed sessions), the session exports its current average
//! strategy and plays a duplicate match: the policy, with the opponent's
//! own bot playing past the policy's horizon, against the opponent. The
//! only difference between the sides is then the decisions the policy
//! trained, so a bidding policy is judged by its bids. Each point goes to
//! `curve.csv` in the run directory, and `curve.svg` is redrawn from it.
//!
//! Points fall on multiples of `every`, so curves of two runs (or two
//! changes to the trainer) line up at equal training time.

use std::io::Write as _;
use std::path::Path;
use std::sync::Arc;

use plotters::prelude::*;
use store::Table;

use crate::config::CurveSettings;
use crate::training::error::TrainingError;
use euchre_bots::arena::{run_match, summarise};
use euchre_bots::blueprint::BiddingBlueprint;
use euchre_bots::bot::Bot;
use euchre_bots::bots::policy::{PolicyBot, Sampling, Unseen};
use euchre_bots::local_best_response;
use euchre_bots::meta::PolicyMeta;
use euchre_bots::phase::{Phase, RECORD_WIDTH};
use euchre_bots::policy_file::{self, PolicyFile};
use euchre_bots::spec::from_spec;

pub const CURVE_FILE: &str = "curve.csv";
pub const CURVE_PLOT: &str = "curve.svg";
/// The policy a point measured, overwritten by the next point.
const SNAPSHOT_FILE: &str = "curve-policy.bin";
const HEADER: &str = "iterations,train_seconds,a_minus_b,interval95,point_share,hands,card_play_lbr,card_play_lbr_interval95,opponent";
/// The header of curves written before points carried the card-play local
/// best response; such files are read, and rewritten in the new form when
/// the next point is added.
const HEADER_WITHOUT_RESPONSE: &str =
    "iterations,train_seconds,a_minus_b,interval95,point_share,hands,opponent";
/// Deals and worlds of a point's card-play local best response: the
/// export's figures, so a run's last point and its export agree.
const RESPONSE_DEALS: u64 = 4000;
const RESPONSE_WORLDS: usize = 32;

/// One measurement of the policy.
#[derive(Clone, Debug, PartialEq)]
pub struct CurvePoint {
    pub iterations: u64,
    pub train_seconds: f64,
    /// The policy's points per hand minus the opponent's.
    pub a_minus_b: f64,
    /// Half-width of the 95% interval of `a_minus_b`, over deals.
    pub interval: f64,
    /// The policy's share of all points.
    pub point_share: f64,
    pub hands: u64,
    /// Card play's local best response and its 95% half-width, for the
    /// phases that train card play: a measure of progress that needs no
    /// opponent, falling as the curve rises.
    pub card_play_response: Option<(f64, f64)>,
    pub opponent: String,
}

impl CurvePoint {
    fn csv_line(&self) -> String {
        let (response, response_interval) = match self.card_play_response {
            Some((gain, interval)) => (format!("{gain:.5}"), format!("{interval:.5}")),
            None => (String::new(), String::new()),
        };
        format!(
            "{},{:.1},{:.5},{:.5},{:.5},{},{response},{response_interval},{}",
            self.iterations,
            self.train_seconds,
            self.a_minus_b,
            self.interval,
            self.point_share,
            self.hands,
            self.opponent
        )
    }

    /// The opponent's spec is the last column and may itself hold commas.
    /// `with_response`: the line has the two local-best-response columns.
    fn parse(line: &str, with_response: bool) -> Option<CurvePoint> {
        let mut fields = line.splitn(if with_response { 9 } else { 7 }, ',');
        let mut next = || fields.next();
        let mut point = CurvePoint {
            iterations: next()?.parse().ok()?,
            train_seconds: next()?.parse().ok()?,
            a_minus_b: next()?.parse().ok()?,
            interval: next()?.parse().ok()?,
            point_share: next()?.parse().ok()?,
            hands: next()?.parse().ok()?,
            card_play_response: None,
            opponent: String::new(),
        };
        if with_response {
            point.card_play_response = match (next()?, next()?) {
                ("", "") => None,
                (gain, interval) => Some((gain.parse().ok()?, interval.parse().ok()?)),
            };
        }
        point.opponent = next()?.to_owned();
        Some(point)
    }
}

impl std::fmt::Display for CurvePoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:+.3} ± {:.3} points per hand against {} ({:.1}% of the points, {} hands) at iteration {} after {:.0} s of training",
            self.a_minus_b,
            self.interval,
            self.opponent,
            100.0 * self.point_share,
            self.hands,
            self.iterations,
            self.train_seconds
        )?;
        if let Some((gain, interval)) = self.card_play_response {
            write!(
                f,
                "; card-play local best response {gain:+.3} ± {interval:.3}"
            )?;
        }
        Ok(())
    }
}

/// Exports `table`'s average strategy and plays it against the opponent.
pub fn measure(
    table: &dyn Table,
    meta: &PolicyMeta,
    fixed_bids: Option<&BiddingBlueprint>,
    train_seconds: f64,
    settings: &CurveSettings,
    threads: usize,
    run_dir: &Path,
) -> Result<CurvePoint, TrainingError> {
    let snapshot = run_dir.join(SNAPSHOT_FILE);
    policy_file::export(
        table,
        meta,
        RECORD_WIDTH,
        fixed_bids.map(BiddingBlueprint::fixed_bids).as_ref(),
        &snapshot,
        &mut |_, _| {},
    )
    .map_err(TrainingError::ExportForCurve)?;
    // One bot serves both roles: bots act through `&self` and are `Sync`.
    let opponent = from_spec(&settings.against, meta.recipe.rules, Unseen::Heuristic)?;
    // Bids refit to a card-play table are played with that table's cards;
    // other bids with the opponent's, as their leaves assume.
    let card_player = match &meta.recipe.card_play_from {
        Some(source) => Arc::new(
            PolicyBot::load(
                &source.path,
                Sampling::Argmax,
                Unseen::Heuristic,
                Arc::clone(&opponent),
            )
            .map_err(TrainingError::ExportForCurve)?,
        ),
        None => Arc::clone(&opponent),
    };
    let policy: Arc<dyn Bot> = Arc::new(
        PolicyBot::load(&snapshot, Sampling::Sample, Unseen::Heuristic, card_player)
            .map_err(TrainingError::ExportForCurve)?,
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(TrainingError::Threads)?;
    let results = pool.install(|| {
        run_match(
            &policy,
            &opponent,
            meta.recipe.rules,
            settings.hands / 2,
            settings.seed,
            &|| {},
        )
    });
    let summary = summarise(&results);
    let card_play_response = if meta.recipe.phase == Phase::FullPlay {
        let policy = PolicyFile::load(&snapshot).map_err(TrainingError::ExportForCurve)?;
        let response = pool.install(|| {
            local_best_response::of_card_play(
                &policy,
                meta.recipe.rules,
                RESPONSE_DEALS,
                RESPONSE_WORLDS,
                1,
            )
        });
        Some((response.gain, response.interval))
    } else {
        None
    };
    Ok(CurvePoint {
        iterations: meta.iterations,
        train_seconds,
        a_minus_b: summary.net_per_hand,
        interval: summary.net_interval,
        point_share: summary.point_share,
        hands: summary.hands,
        card_play_response,
        opponent: settings.against.clone(),
    })
}

/// Appends `point` to the run's curve and redraws its plot.
pub fn record(run_dir: &Path, point: &CurvePoint) -> Result<(), TrainingError> {
    let path = run_dir.join(CURVE_FILE);
    upgrade(run_dir)?;
    let new = !path.exists();
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut file| {
            let header = if new {
                format!("{HEADER}\n")
            } else {
                String::new()
            };
            let text = format!("{header}{}\n", point.csv_line());
            file.write_all(text.as_bytes())?;
            file.sync_data()
        })
        .map_err(|source| TrainingError::Unwritable {
            path: path.clone(),
            source,
        })?;
    let points = read(run_dir)?;
    draw(&points, &run_dir.join(CURVE_PLOT))
}

/// Rewrites a curve in the form without the local-best-response columns
/// in the current form, so that new points can be appended to it.
fn upgrade(run_dir: &Path) -> Result<(), TrainingError> {
    let path = run_dir.join(CURVE_FILE);
    let Some(text) = curve_text(&path)? else {
        return Ok(());
    };
    if text.lines().next() != Some(HEADER_WITHOUT_RESPONSE) {
        return Ok(());
    }
    let mut upgraded = format!("{HEADER}\n");
    for point in read(run_dir)? {
        upgraded.push_str(&point.csv_line());
        upgraded.push('\n');
    }
    Ok(store::write_atomically(&path, upgraded.as_bytes())?)
}

/// The run's points so far, oldest first; none before the first.
pub fn read(run_dir: &Path) -> Result<Vec<CurvePoint>, TrainingError> {
    let path = run_dir.join(CURVE_FILE);
    let Some(text) = curve_text(&path)? else {
        return Ok(Vec::new());
    };
    let with_response = text.lines().next() != Some(HEADER_WITHOUT_RESPONSE);
    text.lines()
        .skip(1)
        .filter(|line| !line.trim().is_empty())
        .enumerate()
        .map(|(index, line)| {
            CurvePoint::parse(line, with_response).ok_or_else(|| TrainingError::CurveLine {
                path: path.clone(),
                line: index + 2,
                text: line.to_owned(),
            })
        })
        .collect()
}

/// Draws the points (A minus B with its interval, over training minutes).
pub fn draw(points: &[CurvePoint], path: &Path) -> Result<(), TrainingError> {
    let mut svg = String::new();
    let mut plot = |points: &[CurvePoint]| -> Result<(), Box<dyn std::error::Error>> {
        let root = SVGBackend::with_string(&mut svg, (800, 480)).into_drawing_area();
        root.fill(&WHITE)?;
        let minutes = |point: &CurvePoint| point.train_seconds / 60.0;
        let x_end = points.iter().map(minutes).fold(1.0, f64::max) * 1.05;
        let (low, high) = points.iter().fold((-0.1f64, 0.1f64), |(low, high), p| {
            (
                low.min(p.a_minus_b - p.interval),
                high.max(p.a_minus_b + p.interval),
            )
        });
        let margin = (high - low) * 0.1;
        let opponent = points.last().map_or("", |p| p.opponent.as_str());
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("policy minus {opponent}, points per hand (95% interval)"),
                ("sans-serif", 20),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..x_end, (low - margin)..(high + margin))?;
        chart
            .configure_mesh()
            .x_desc("training minutes")
            .y_desc("A minus B per hand")
            .draw()?;
        chart.draw_series(LineSeries::new([(0.0, 0.0), (x_end, 0.0)], &BLACK))?;
        chart.draw_series(LineSeries::new(
            points.iter().map(|p| (minutes(p), p.a_minus_b)),
            &BLUE,
        ))?;
        for point in points {
            let x = minutes(point);
            chart.draw_series(LineSeries::new(
                [
                    (x, point.a_minus_b - point.interval),
                    (x, point.a_minus_b + point.interval),
                ],
                &BLUE,
            ))?;
        }
        chart.draw_series(
            points
                .iter()
                .map(|p| Circle::new((minutes(p), p.a_minus_b), 3, BLUE.filled())),
        )?;
        root.present()?;
        Ok(())
    };
    plot(points).map_err(|error| TrainingError::Draw {
        path: path.to_path_buf(),
        reason: error.to_string(),
    })?;
    Ok(store::write_atomically(path, svg.as_bytes())?)
}

/// The most a curve's CSV may hold: a point a minute for a year is 40 MB.
const MAX_CURVE_BYTES: u64 = 64 << 20;

/// The curve's text, or `None` before its first point.
fn curve_text(path: &Path) -> Result<Option<String>, TrainingError> {
    match store::read_text_bounded(path, MAX_CURVE_BYTES) {
        Ok(text) => Ok(Some(text)),
        Err(store::RegularFileError::Io { source, .. })
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            Ok(None)
        }
        Err(error) => Err(TrainingError::Unreadable {
            path: path.to_path_buf(),
            source: std::io::Error::other(error.to_string()),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(iterations: u64, seconds: f64, value: f64) -> CurvePoint {
        CurvePoint {
            iterations,
            train_seconds: seconds,
            a_minus_b: value,
            interval: 0.05,
            point_share: 0.45,
            hands: 200,
            card_play_response: (iterations > 1000).then_some((0.02, 0.004)),
            opponent: "pimc:20,x".into(),
        }
    }

    #[test]
    fn points_round_trip_through_the_csv_and_are_drawn() {
        let dir = std::env::temp_dir().join(format!("trainer-curve-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let points = [point(1000, 60.0, -0.4), point(2500, 120.0, -0.25)];
        for p in &points {
            record(&dir, p).unwrap();
        }
        assert_eq!(read(&dir).unwrap(), points);
        let svg = std::fs::read_to_string(dir.join(CURVE_PLOT)).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("training minutes"));
        std::fs::write(dir.join(CURVE_FILE), format!("{HEADER}\n1,2,x\n")).unwrap();
        let error = read(&dir).unwrap_err();
        assert!(format!("{error:#}").contains("line 2"), "{error:#}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_curve_written_before_the_response_columns_reads_and_grows() {
        let dir = std::env::temp_dir().join(format!("trainer-curve-old-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join(CURVE_FILE),
            format!(
                "{HEADER_WITHOUT_RESPONSE}\n1000,60.0,-0.40000,0.05000,0.45000,200,pimc:20,x\n"
            ),
        )
        .unwrap();
        let old = point(1000, 60.0, -0.4);
        assert_eq!(read(&dir).unwrap(), std::slice::from_ref(&old));
        let new = point(2500, 120.0, -0.25);
        record(&dir, &new).unwrap();
        assert_eq!(read(&dir).unwrap(), [old, new]);
        let text = std::fs::read_to_string(dir.join(CURVE_FILE)).unwrap();
        assert!(text.starts_with(HEADER), "{text}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
