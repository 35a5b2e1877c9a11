//! A fuzzer for every parser of outside input: policy files, run profiles,
//! bot-API views (and the JSON-lines reader of `trainer act`), replay
//! lines, EGN game files (read, replayed and analysed, and uploaded to the
//! server's analysis page through its whole router), store manifests, the mmap store's undo journal, and each store's
//! open on a damaged directory. Inputs are mutated from a seed corpus of
//! real inputs (a few are purely random); each must be refused or accepted
//! without a panic, a signal, more than [`TIME_BOUND`] or more than
//! [`alloc_bound`] bytes allocated at once.
//!
//! The default suite runs [`SHORT_RUN`] inputs a target; the long run,
//! `cargo test --profile ci -p trainer --test fuzz -- --ignored`, runs
//! [`LONG_RUN`] (or `FUZZ_INPUTS`) a target and prints a table. An input
//! that ever fails is written to `tests/fuzz-corpus/TARGET/` and the test
//! fails; kept there, it is replayed first by every later run.

// The counting allocator needs `unsafe impl GlobalAlloc`; it only adds
// bookkeeping around the system allocator.
#![allow(unsafe_code)]

mod support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use euchre_bots::api::{ActRequest, act, run_lines};
use euchre_bots::bot::Bot;
use euchre_bots::bots::heuristic::Heuristic;
use euchre_bots::meta::PolicyMeta;
use euchre_bots::phase::Phase;
use euchre_bots::policy_file::{PolicyFile, export};
use euchre_game::engine::rules::Rules;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use store::{
    ClientState, DurableTable, Fingerprint, Key, LmdbTable, Manifest, MemoryTable, MmapTable,
    RecordEncoding, RecordLayout, SnapshotTable, Table, Verify,
};

/// Counts the bytes allocated now and the most since the last reset.
struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed to the system allocator unchanged; the
// counters are plain atomics, touched after the allocation succeeded.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is the system allocator's.
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            let now = CURRENT.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(pointer, layout) };
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as above.
        let moved = unsafe { System.realloc(pointer, layout, new_size) };
        if !moved.is_null() {
            if new_size >= layout.size() {
                let now = CURRENT.fetch_add(new_size - layout.size(), Ordering::Relaxed)
                    + (new_size - layout.size());
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                CURRENT.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        moved
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Targets run one at a time, so that one's allocations are not charged
/// to another's input.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

const SHORT_RUN: u64 = 10_000;
const LONG_RUN: u64 = 1_000_000;
/// The longest any one input may take.
const TIME_BOUND: Duration = Duration::from_secs(2);

/// The most one input may have allocated at once: a parser may hold its
/// input a few times over, never memory its input only claims to need.
fn alloc_bound(input: usize) -> usize {
    (64 << 20) + 64 * input
}

/// What one target did.
struct Report {
    target: &'static str,
    inputs: u64,
    accepted: u64,
    seconds: f64,
    slowest: Duration,
    most_allocated: usize,
    failures: Vec<String>,
}

/// Runs `parse` on the corpus's kept inputs, then on `inputs` mutated
/// from `seeds`. `parse` returns whether the input was accepted.
fn fuzz(
    target: &'static str,
    inputs: u64,
    seeds: &[Vec<u8>],
    mut parse: impl FnMut(&[u8]) -> bool,
) -> Report {
    let _alone = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let corpus = corpus_dir(target);
    let kept: Vec<Vec<u8>> = std::fs::read_dir(&corpus)
        .map(|entries| {
            entries
                .flatten()
                .filter(|entry| entry.path().extension().is_some_and(|e| e == "bin"))
                .filter_map(|entry| std::fs::read(entry.path()).ok())
                .collect()
        })
        .unwrap_or_default();
    let mut all_seeds = seeds.to_vec();
    all_seeds.extend(kept.iter().cloned());
    let mut mutator = Mutator {
        rng: SmallRng::seed_from_u64(0xF0 ^ target.len() as u64),
        seeds: all_seeds,
    };
    let mut report = Report {
        target,
        inputs: 0,
        accepted: 0,
        seconds: 0.0,
        slowest: Duration::ZERO,
        most_allocated: 0,
        failures: Vec::new(),
    };
    let started = Instant::now();
    let total = kept.len() as u64 + inputs;
    for index in 0..total {
        let input = match kept.get(index as usize) {
            Some(input) => input.clone(),
            None => mutator.next(),
        };
        let base = CURRENT.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
        let began = Instant::now();
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| parse(&input)));
        let took = began.elapsed();
        let allocated = PEAK.load(Ordering::Relaxed).saturating_sub(base);
        report.inputs += 1;
        report.slowest = report.slowest.max(took);
        report.most_allocated = report.most_allocated.max(allocated);
        let failure = match outcome {
            Err(_) => Some("panicked".to_owned()),
            Ok(_) if took > TIME_BOUND => Some(format!("took {took:?}")),
            Ok(_) if allocated > alloc_bound(input.len()) => {
                Some(format!("allocated {allocated} bytes"))
            }
            Ok(accepted) => {
                report.accepted += u64::from(accepted);
                None
            }
        };
        if let Some(what) = failure {
            let name = format!("failed-{:08x}.bin", crc32fast::hash(&input));
            std::fs::create_dir_all(&corpus).ok();
            std::fs::write(corpus.join(&name), &input).ok();
            report.failures.push(format!("{what}: kept as {name}"));
        }
    }
    report.seconds = started.elapsed().as_secs_f64();
    report
}

fn corpus_dir(target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz-corpus")
        .join(target)
}

/// Byte-level mutations of the seeds, with some that aim at the formats:
/// integer fields set to edge values, JSON and TOML tokens spliced in.
struct Mutator {
    rng: SmallRng,
    seeds: Vec<Vec<u8>>,
}

const TOKENS: &[&[u8]] = &[
    b"-1",
    b"0",
    b"18446744073709551616",
    b"4294967296",
    b"1e999",
    b"-0",
    b"NaN",
    b"nan",
    b"\"\"",
    b"null",
    b"[]",
    b"{}",
    b"[[",
    b"\\u0000",
    b"\"\\ud800\"",
    b"true",
    b"=",
    b"\n[run]\n",
    b"\xff\xfe",
    b"\r",
    b"\t",
    b"9999999999",
];
const WORDS: &[u64] = &[
    0,
    1,
    0x7f,
    0x80,
    0xff,
    0xffff,
    0x7fff_ffff,
    u32::MAX as u64,
    u64::MAX,
    1 << 40,
];

impl Mutator {
    fn next(&mut self) -> Vec<u8> {
        let rng = &mut self.rng;
        if rng.random_range(0..20) == 0 {
            let length = rng.random_range(0..512);
            return (0..length).map(|_| rng.random()).collect();
        }
        let mut data = self.seeds[rng.random_range(0..self.seeds.len())].clone();
        let rounds = 1 + rng.random_range(0..4) * rng.random_range(0..3);
        for _ in 0..rounds {
            let at = |rng: &mut SmallRng, data: &[u8]| rng.random_range(0..=data.len());
            match rng.random_range(0..10) {
                0 if !data.is_empty() => {
                    let i = rng.random_range(0..data.len());
                    data[i] ^= 1 << rng.random_range(0..8);
                }
                1 if !data.is_empty() => {
                    let i = rng.random_range(0..data.len());
                    data[i] = [0, 1, 0x7f, 0x80, 0xff, b'"', b'{', b'[', b'-', b'9']
                        [rng.random_range(0..10)];
                }
                2 if data.len() >= 8 => {
                    let i = rng.random_range(0..=data.len() - 8);
                    let word = WORDS[rng.random_range(0..WORDS.len())].to_le_bytes();
                    let width = [1, 2, 4, 8][rng.random_range(0..4)];
                    data[i..i + width].copy_from_slice(&word[..width]);
                }
                3 if !data.is_empty() => {
                    let start = rng.random_range(0..data.len());
                    let end = (start + rng.random_range(1..64)).min(data.len());
                    data.drain(start..end);
                }
                4 => {
                    let i = at(rng, &data);
                    let extra: Vec<u8> =
                        (0..rng.random_range(1..32)).map(|_| rng.random()).collect();
                    data.splice(i..i, extra);
                }
                5 if !data.is_empty() => {
                    let start = rng.random_range(0..data.len());
                    let end = (start + rng.random_range(1..256)).min(data.len());
                    let chunk = data[start..end].to_vec();
                    let i = at(rng, &data);
                    data.splice(i..i, chunk);
                }
                6 => {
                    let keep = at(rng, &data);
                    data.truncate(keep);
                }
                7 => {
                    let other = &self.seeds[rng.random_range(0..self.seeds.len())];
                    let cut = rng.random_range(0..=data.len());
                    let from = rng.random_range(0..=other.len());
                    data.truncate(cut);
                    data.extend_from_slice(&other[from..]);
                }
                8 => {
                    let i = at(rng, &data);
                    let token = TOKENS[rng.random_range(0..TOKENS.len())];
                    data.splice(i..i, token.iter().copied());
                }
                _ if !data.is_empty() => {
                    let start = rng.random_range(0..data.len());
                    let end = (start + rng.random_range(1..16)).min(data.len());
                    for byte in &mut data[start..end] {
                        *byte = rng.random();
                    }
                }
                _ => {}
            }
        }
        data
    }
}

/// A scratch directory in memory where possible (`/dev/shm`): file-based
/// parsers are fed through real files.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let base = if Path::new("/dev/shm").is_dir() {
            PathBuf::from("/dev/shm")
        } else {
            std::env::temp_dir()
        };
        let path = base.join(format!("trainer-fuzz-{name}-{}", std::process::id()));
        std::fs::remove_dir_all(&path).ok();
        std::fs::create_dir_all(&path).unwrap();
        Scratch(path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.0).ok();
    }
}

fn layout() -> RecordLayout {
    RecordLayout::new(7, RecordEncoding::F32).unwrap()
}

fn fingerprint() -> Fingerprint {
    Fingerprint {
        digest: 0xF022,
        description: "fuzz".into(),
    }
}

fn keys(count: u128) -> Vec<Key> {
    (0..count).map(|i| (i * 0x9E37_79B9) << 3 | 1).collect()
}

fn fill(table: &dyn DurableTable, count: u128) {
    for (index, key) in keys(count).into_iter().enumerate() {
        let slot = table.slot(key).unwrap();
        table
            .update(slot, &mut |record| {
                record.regrets[0] = index as f32 - 3.5;
                record.strategy_sum[1] = 2.0;
                record.stamp = 1;
            })
            .unwrap();
    }
    table.checkpoint(&ClientState::NONE).unwrap();
}

/// Reads every record of an opened store: what training would do next.
fn read_all(table: &dyn Table) {
    let mut records = 0u64;
    let _ = table.for_each(&mut |_, _| records += 1);
}

// ---- the targets -------------------------------------------------------

fn policy_files(inputs: u64) -> Report {
    let scratch = Scratch::new("policy");
    let table = MemoryTable::with_layout(layout());
    for (index, key) in keys(40).into_iter().enumerate() {
        let slot = table.slot(key).unwrap();
        table
            .update(slot, &mut |record| record.strategy_sum[index % 3] = 5.0)
            .unwrap();
    }
    let seed_path = scratch.0.join("seed.bin");
    let meta = PolicyMeta::new(Phase::Bidding, Rules::default(), 40);
    export(&table, &meta, 7, None, &seed_path, &mut |_, _| {}).unwrap();
    let seeds = vec![std::fs::read(&seed_path).unwrap()];
    let path = scratch.0.join("policy.bin");
    fuzz("policy-file", inputs, &seeds, |input| {
        std::fs::write(&path, input).unwrap();
        let _ = PolicyFile::read_header(&path);
        PolicyFile::load(&path).is_ok()
    })
}

fn profiles(inputs: u64) -> Report {
    let configs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs");
    let seeds: Vec<Vec<u8>> = std::fs::read_dir(configs)
        .unwrap()
        .flatten()
        .filter_map(|entry| std::fs::read(entry.path()).ok())
        .collect();
    assert!(seeds.len() >= 5, "the profiles in configs/ are the seeds");
    fuzz("profile", inputs, &seeds, |input| {
        let text = String::from_utf8_lossy(input);
        trainer::config::parse_profile(&text, "fuzz.toml").is_ok()
    })
}

const VIEWS: &[&str] = &[
    r#"{"dealer":"N","seat":"E","hand":["9c","Tc","Qc","Kc","Ac"],"upcard":"Jh","actions":[]}"#,
    r#"{"dealer":"N","seat":"S","hand":["9c","Tc","Qc","Kc","Ac"],"upcard":"Jh","actions":["pass"],"seed":3}"#,
    r#"{"dealer":"N","seat":"N","hand":["Jh","Ah","Kh","9c","Tc"],"upcard":"Qs","actions":["pass","order"]}"#,
    r#"{"dealer":"N","seat":"E","hand":["Jd","Qh","9s","Ts","Qc"],"upcard":"Qs","actions":["pass","order","discard 9c"]}"#,
    r#"{"dealer":"N","seat":"S","hand":["Th","9h","Ac","Kc","Js"],"upcard":"Qs","actions":["pass","order","discard 9c","play Jd"]}"#,
    r#"{"dealer":"W","seat":"N","hand":["9d","Td","Jd","Qd","Kd"],"upcard":"9s","actions":["pass","pass","pass","pass","call h alone"]}"#,
];

fn views(inputs: u64) -> Report {
    let seeds: Vec<Vec<u8>> = VIEWS.iter().map(|view| view.as_bytes().to_vec()).collect();
    let bot: std::sync::Arc<dyn Bot> = std::sync::Arc::new(Heuristic);
    fuzz("bot-api-view", inputs, &seeds, |input| {
        let accepted = serde_json::from_slice::<ActRequest>(input)
            .ok()
            .is_some_and(|request| act(bot.as_ref(), Rules::default(), &request).is_ok());
        // The same bytes as `trainer act` reads them, lines and all.
        let mut out = Vec::new();
        run_lines(&bot, Rules::default(), input, &mut out).unwrap();
        accepted
    })
}

fn replay_lines(inputs: u64) -> Report {
    let hand = r#"{"dealer":"N","hands":{"N":["Jh","Ah","Kh","9c","Tc"],"E":["Jd","Qh","9s","Ts","Qc"],"S":["Th","9h","Ac","Kc","Js"],"W":["Ad","Kd","Qd","As","Ks"]},"upcard":"Qs","actions":["pass","order","discard 9c","play Jd","play Th"]}"#;
    let seeds = vec![
        hand.as_bytes().to_vec(),
        format!("{hand}\n{hand}\n").into_bytes(),
    ];
    fuzz("replay-line", inputs, &seeds, |input| {
        let mut out = Vec::new();
        trainer::commands::replay::run(input, &mut out).is_ok()
            && String::from_utf8_lossy(&out).contains("\"next_to_act\"")
    })
}

/// EGN game files: read, every deal rebuilt and replayed, and the game
/// analysed by the heuristic (the analysis walks every decision).
fn egn_games(inputs: u64) -> Report {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../euchre-game/tests/egn");
    let seeds: Vec<Vec<u8>> = [
        "VWEC_Finals_Annotated.egn",
        "Masters_of_the_Euchreverse_Week_1_Game_1.egn",
        "Custom_Scenario.egn",
        "test.egn",
    ]
    .iter()
    .map(|name| std::fs::read(dir.join(name)).expect("a vendored EGN file"))
    .collect();
    fuzz("egn", inputs, &seeds, |input| {
        let Ok(game) = euchre_game::egn::read(&String::from_utf8_lossy(input)) else {
            return false;
        };
        let analysis = euchre_bots::analysis::analyse(&game, &Heuristic, 1);
        let _ = euchre_game::egn::write(&game);
        !analysis.deals.is_empty()
    })
}

/// The server's upload path, as a browser sends it: a multipart body
/// holding an EGN file and the judge, through the whole router (body
/// limit, multipart parsing, UTF-8, the EGN reader, the analysis by the
/// heuristic, the page). Mutations hit the multipart framing as well as
/// the game. Accepted: the analysis was made (a redirect to it). Never a
/// 500, never a panic.
fn egn_uploads(inputs: u64) -> Report {
    use axum::body::Body;
    use axum::http::{Request, StatusCode, header};
    use tower::ServiceExt;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../euchre-game/tests/egn");
    let boundary = "----fuzz-boundary";
    let seeds: Vec<Vec<u8>> = ["VWEC_Finals_Annotated.egn", "Custom_Scenario.egn"]
        .iter()
        .map(|name| {
            let game = std::fs::read_to_string(dir.join(name)).expect("a vendored EGN file");
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"g.egn\"\r\n\
                 Content-Type: application/octet-stream\r\n\r\n{game}\r\n--{boundary}\r\n\
                 Content-Disposition: form-data; name=\"bot\"\r\n\r\nheuristic\r\n--{boundary}--\r\n"
            )
            .into_bytes()
        })
        .collect();
    let options = trainer::serve::ServeOptions {
        bots: vec!["heuristic".to_owned()],
        run_dirs: Vec::new(),
        rules: Rules::default(),
        unseen: euchre_bots::bots::policy::Unseen::Heuristic,
        address: std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
        seed: Some(1),
        allowed_hosts: Vec::new(),
        games_dir: None,
        hint_bot: "heuristic".to_owned(),
    };
    let shutdown = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let router = trainer::serve::app(&options, &shutdown).expect("the server builds");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    fuzz("egn-upload", inputs, &seeds, |input| {
        let request = Request::post("/analysis")
            .header(header::HOST, "127.0.0.1")
            .header(
                header::CONTENT_TYPE,
                format!("multipart/form-data; boundary={boundary}"),
            )
            .body(Body::from(input.to_vec()))
            .expect("a request");
        let status = runtime
            .block_on(router.clone().oneshot(request))
            .expect("the router answers")
            .status();
        assert_ne!(status, StatusCode::INTERNAL_SERVER_ERROR, "a 500");
        status == StatusCode::SEE_OTHER
    })
}

fn manifests(inputs: u64) -> Report {
    let scratch = Scratch::new("manifest");
    let mut seeds = Vec::new();
    for backend in ["memory", "lmdb", "mmap"] {
        let dir = scratch.0.join(backend);
        match backend {
            "memory" => fill(
                &SnapshotTable::open(&dir, layout(), fingerprint()).unwrap(),
                20,
            ),
            "lmdb" => fill(
                &LmdbTable::open(&dir, layout(), fingerprint(), 64).unwrap(),
                20,
            ),
            _ => fill(&open_mmap(&dir).unwrap(), 20),
        }
        seeds.push(std::fs::read(dir.join(store::MANIFEST_FILE)).unwrap());
    }
    let dir = scratch.0.join("read");
    std::fs::create_dir_all(&dir).unwrap();
    let wanted = Manifest::new(store::Backend::Mmap, layout(), fingerprint());
    fuzz("store-manifest", inputs, &seeds, |input| {
        std::fs::write(dir.join(store::MANIFEST_FILE), input).unwrap();
        match Manifest::read(&dir) {
            Ok(Some(manifest)) => {
                let _ = manifest.layout();
                manifest.check_compatible(&wanted, &dir).is_ok()
            }
            _ => false,
        }
    })
}

fn open_mmap(dir: &Path) -> Result<MmapTable, store::StoreError> {
    let universe = vec![keys(500)];
    MmapTable::open_verified(
        dir,
        layout(),
        fingerprint(),
        || universe,
        &mut |_| {},
        Verify::Full,
    )
}

/// A store with its files as a checkpoint left them, restored before each
/// input; `damaged` names the file the inputs replace.
struct PristineStore {
    dir: PathBuf,
    files: Vec<(PathBuf, Vec<u8>)>,
}

impl PristineStore {
    fn capture(dir: &Path) -> PristineStore {
        let files = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .flat_map(|entry| {
                let path = entry.path();
                if path.is_dir() {
                    std::fs::read_dir(&path)
                        .unwrap()
                        .flatten()
                        .map(|inner| inner.path())
                        .collect::<Vec<_>>()
                } else {
                    vec![path]
                }
            })
            .filter(|path| !path.to_string_lossy().ends_with(".lock"))
            .map(|path| {
                let bytes = std::fs::read(&path).unwrap();
                (path, bytes)
            })
            .collect();
        PristineStore {
            dir: dir.to_path_buf(),
            files,
        }
    }

    fn file(&self, name: &str) -> Vec<u8> {
        self.files
            .iter()
            .find(|(path, _)| path.ends_with(name))
            .map(|(_, bytes)| bytes.clone())
            .unwrap_or_else(|| panic!("no {name} in {}", self.dir.display()))
    }

    /// Puts every file back, then `name` as `bytes`.
    fn restore_with(&self, name: &str, bytes: &[u8]) {
        for (path, original) in &self.files {
            if path.ends_with(name) {
                std::fs::write(path, bytes).unwrap();
            } else if std::fs::read(path).ok().as_deref() != Some(original.as_slice()) {
                std::fs::write(path, original).unwrap();
            }
        }
    }
}

fn undo_journals(inputs: u64) -> Report {
    let scratch = Scratch::new("journal");
    let dir = scratch.0.join("store");
    let table = open_mmap(&dir).unwrap();
    fill(&table, 500);
    for key in keys(500).into_iter().step_by(3) {
        let slot = table.slot(key).unwrap();
        table
            .update(slot, &mut |record| record.regrets[2] += 9.0)
            .unwrap();
    }
    let killed = std::fs::read(dir.join("mmap-undo.dat")).unwrap();
    drop(table); // no checkpoint: as if killed
    let pristine = PristineStore::capture(&dir);
    let seeds = vec![killed.clone(), killed[..32].to_vec()];
    fuzz("undo-journal", inputs, &seeds, |input| {
        pristine.restore_with("mmap-undo.dat", input);
        match open_mmap(&dir) {
            Ok(table) => {
                read_all(&table);
                true
            }
            Err(_) => false,
        }
    })
}

/// Each backend's store files, damaged: the open refuses or the records
/// read whole.
fn damaged_store(inputs: u64, backend: &'static str) -> Report {
    let scratch = Scratch::new(backend);
    let dir = scratch.0.join("store");
    let (target, files): (&'static str, &[&str]) = match backend {
        "memory" => {
            fill(
                &SnapshotTable::open(&dir, layout(), fingerprint()).unwrap(),
                300,
            );
            ("open-memory-store", &["memory-snapshot-1.bin"])
        }
        "lmdb" => {
            let table = LmdbTable::open(&dir, layout(), fingerprint(), 64).unwrap();
            fill(&table, 300);
            // Past the checkpoint, so the undo database holds saved bytes
            // and lists of created keys too.
            for key in keys(300)
                .into_iter()
                .step_by(2)
                .chain((0..50).map(|i| i << 9 | 6))
            {
                let slot = table.slot(key).unwrap();
                table
                    .update(slot, &mut |record| record.regrets[1] += 1.0)
                    .unwrap();
            }
            drop(table);
            ("open-lmdb-store", &["data.mdb"])
        }
        _ => {
            fill(&open_mmap(&dir).unwrap(), 500);
            (
                "open-mmap-store",
                &["mmap-records.dat", "mmap-keys.dat", "mmap-phf.bin"],
            )
        }
    };
    let pristine = PristineStore::capture(&dir);
    let seeds: Vec<Vec<u8>> = files.iter().map(|name| pristine.file(name)).collect();
    let sizes: Vec<usize> = seeds.iter().map(Vec::len).collect();
    fuzz(target, inputs, &seeds, |input| {
        // Each input replaces the file whose seed it most resembles in size.
        let name = files
            .iter()
            .zip(&sizes)
            .min_by_key(|(_, size)| size.abs_diff(input.len()))
            .map_or(files[0], |(name, _)| *name);
        pristine.restore_with(name, input);
        let opened: Result<Box<dyn DurableTable>, store::StoreError> = match backend {
            "memory" => {
                SnapshotTable::open(&dir, layout(), fingerprint()).map(|t| Box::new(t) as _)
            }
            "lmdb" => LmdbTable::open(&dir, layout(), fingerprint(), 64).map(|t| Box::new(t) as _),
            _ => open_mmap(&dir).map(|t| Box::new(t) as _),
        };
        match opened {
            Ok(table) => {
                read_all(table.as_ref());
                true
            }
            Err(_) => false,
        }
    })
}

// ---- running them ------------------------------------------------------

fn check(report: &Report) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "{:<20} {:>9} inputs {:>9} accepted {:>8.1} s  slowest {:>7.1} ms  most allocated {:>6.1} MiB",
        report.target,
        report.inputs,
        report.accepted,
        report.seconds,
        report.slowest.as_secs_f64() * 1e3,
        report.most_allocated as f64 / f64::from(1 << 20),
    );
    assert!(
        report.failures.is_empty(),
        "{}: {} inputs failed:\n{}",
        report.target,
        report.failures.len(),
        report.failures.join("\n")
    );
}

fn long_run_inputs() -> u64 {
    std::env::var("FUZZ_INPUTS")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(LONG_RUN)
}

#[test]
fn fuzz_policy_files() {
    check(&policy_files(SHORT_RUN));
}

#[test]
fn fuzz_profiles() {
    check(&profiles(SHORT_RUN));
}

#[test]
fn fuzz_bot_api_views() {
    check(&views(SHORT_RUN));
}

#[test]
fn fuzz_replay_lines() {
    check(&replay_lines(SHORT_RUN));
}

#[test]
fn fuzz_egn_games() {
    check(&egn_games(SHORT_RUN));
}

#[test]
fn fuzz_egn_uploads() {
    check(&egn_uploads(SHORT_RUN));
}

#[test]
fn fuzz_store_manifests() {
    check(&manifests(SHORT_RUN));
}

#[test]
fn fuzz_undo_journals() {
    check(&undo_journals(SHORT_RUN));
}

#[test]
fn fuzz_store_opens() {
    for backend in ["memory", "lmdb", "mmap"] {
        check(&damaged_store(SHORT_RUN, backend));
    }
}

#[test]
#[ignore = "the long run: a million inputs a target, about an hour on 2 cores"]
fn fuzz_long_run() {
    let inputs = long_run_inputs();
    // `FUZZ_TARGETS=egn-upload,lmdb` runs only those (by the names in
    // this list); every target by default.
    let wanted = std::env::var("FUZZ_TARGETS").ok();
    let runs = |name: &str| {
        wanted
            .as_deref()
            .is_none_or(|list| list.split(',').any(|wanted| wanted.trim() == name))
    };
    let targets: [(&str, &dyn Fn() -> Report); 11] = [
        ("policy-file", &|| policy_files(inputs)),
        ("profile", &|| profiles(inputs)),
        ("bot-api-view", &|| views(inputs)),
        ("replay-line", &|| replay_lines(inputs)),
        ("egn", &|| egn_games(inputs)),
        ("egn-upload", &|| egn_uploads(inputs)),
        ("store-manifest", &|| manifests(inputs)),
        ("undo-journal", &|| undo_journals(inputs)),
        ("open-memory-store", &|| damaged_store(inputs, "memory")),
        ("open-lmdb-store", &|| damaged_store(inputs, "lmdb")),
        ("open-mmap-store", &|| damaged_store(inputs, "mmap")),
    ];
    let reports: Vec<Report> = targets
        .iter()
        .filter(|(name, _)| runs(name))
        .map(|(_, run)| run())
        .collect();
    assert!(!reports.is_empty(), "FUZZ_TARGETS names no target");
    for report in &reports {
        check(report);
    }
}
