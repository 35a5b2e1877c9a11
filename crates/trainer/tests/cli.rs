//! The `trainer` binary end to end: real processes, real arguments.

mod support;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use support::{refused, text};

fn trainer(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_trainer"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the trainer binary runs");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(stdin.as_bytes())
        .expect("stdin accepts input");
    child.wait_with_output().expect("the trainer finishes")
}

#[test]
fn enumerate_bidding_prints_the_exact_count() {
    let output = trainer(&["enumerate", "--phase", "bidding"], "");
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert!(stdout.contains("1,586,970"), "{stdout}");
    assert!(stdout.contains("mmap"), "{stdout}");
}

#[test]
fn enumerate_reads_rules_from_a_profile() {
    let dir = std::env::temp_dir().join(format!("trainer-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("lone.toml");
    std::fs::write(&good, "[rules]\nlone_defender = true\n").unwrap();
    let output = trainer(&["enumerate", "--config", good.to_str().unwrap()], "");
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert!(stdout.contains("lone_defender=true"), "{stdout}");
    assert!(
        !stdout.contains("1,586,970"),
        "lone defending adds infostates: {stdout}"
    );

    let typo = dir.join("typo.toml");
    std::fs::write(&typo, "[rules]\nlone_defendr = true\n").unwrap();
    let stderr = refused(&trainer(
        &["enumerate", "--config", typo.to_str().unwrap()],
        "",
    ));
    assert!(
        stderr.contains("lone_defendr") && stderr.contains("typo.toml"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_missing_config_file_is_a_clear_error() {
    let stderr = refused(&trainer(
        &["enumerate", "--config", "/nonexistent/profile.toml"],
        "",
    ));
    assert!(
        stderr.contains("cannot read the config file /nonexistent/profile.toml"),
        "{stderr}"
    );
}

#[test]
fn bad_arguments_name_the_problem() {
    let stderr = refused(&trainer(&["enumerate", "--phase", "poker"], ""));
    assert!(
        stderr.contains("poker") && stderr.contains("bidding"),
        "{stderr}"
    );
    let stderr = refused(&trainer(&["bench", "game", "--hands", "lots"], ""));
    assert!(stderr.contains("lots"), "{stderr}");
}

#[test]
fn replay_reads_stdin_and_survives_bad_lines() {
    let hand = r#"{"dealer":"N","hands":{"N":["Jh","Ah","Kh","9c","Tc"],"E":["Jd","Qh","9s","Ts","Qc"],"S":["Th","9h","Ac","Kc","Js"],"W":["Ad","Kd","Qd","As","Ks"]},"upcard":"Qs","actions":["pass","order","discard 9c"]}"#;
    let output = trainer(&["replay"], &format!("{hand}\n{{oops\n{hand}\n"));
    assert!(output.status.success(), "{}", text(&output.stderr));
    let lines: Vec<serde_json::Value> = text(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(
        lines[0]["next_to_act"], "E",
        "play starts left of the dealer"
    );
    assert!(lines[1]["error"].is_string());
    assert_eq!(lines[2]["line"], 3);
}

#[test]
fn bench_game_prints_a_table() {
    let output = trainer(&["bench", "game", "--hands", "2000"], "");
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert!(
        stdout.contains("hands/s") && stdout.contains("random hand, default rules"),
        "{stdout}"
    );
}

#[test]
fn bench_train_measures_the_chosen_rows_for_a_stretch_of_time() {
    let dir = std::env::temp_dir().join(format!("cli-bench-train-{}", std::process::id()));
    let dir = dir.to_string_lossy().into_owned();
    let output = trainer(
        &[
            "bench",
            "train",
            "--phases",
            "bidding",
            "--stores",
            "memory",
            "--threads",
            "1",
            "--for",
            "1s",
            "--warm-up",
            "1s",
            "--dir",
            &dir,
        ],
        "",
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert!(
        stdout.contains("1 s of training each after a 1 s warm-up"),
        "{stdout}"
    );
    let rows: Vec<&str> = stdout
        .lines()
        .filter(|line| line.starts_with("bidding"))
        .collect();
    assert_eq!(
        rows.len(),
        1,
        "only the chosen store and thread count: {stdout}"
    );
    let fields: Vec<&str> = rows[0].split_whitespace().collect();
    assert_eq!(&fields[..4], ["bidding", "memory", "1", "trained"]);
    let rate: u64 = fields[4].replace(',', "").parse().expect("an it/s figure");
    assert!(rate > 0, "{stdout}");
    assert!(!std::path::Path::new(&dir).exists(), "the bench cleans up");

    // A count and a time cannot both set the length.
    let stderr = refused(&trainer(
        &["bench", "train", "--iterations", "100", "--for", "1m"],
        "",
    ));
    assert!(stderr.contains("cannot be used with"), "{stderr}");
}

#[test]
fn enumerate_full_play_counts_the_rank_compressed_universe() {
    let output = trainer(&["enumerate", "--phase", "full-play"], "");
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    // Exact counts of the streamed universe: all play keys, and those with
    // a choice (the brief's independent counts are 7.7e7 and 4.4e7).
    assert!(stdout.contains("77,979,414"), "{stdout}");
    assert!(stdout.contains("44,369,615"), "{stdout}");
}

#[test]
fn eval_prints_an_interval_and_is_deterministic() {
    let args = [
        "eval",
        "--a",
        "heuristic",
        "--b",
        "random",
        "--hands",
        "400",
        "--seed",
        "5",
    ];
    let first = trainer(&args, "");
    assert!(first.status.success(), "{}", text(&first.stderr));
    let stdout = text(&first.stdout);
    assert!(stdout.contains("95% interval"), "{stdout}");
    assert!(stdout.contains("point share"), "{stdout}");
    assert!(stdout.contains("games to 10"), "{stdout}");
    // The split by first differing decision: random parts from the
    // heuristic in the bidding on most deals.
    assert!(stdout.contains("where the points come from"), "{stdout}");
    assert!(stdout.contains("\nround-1 bid "), "{stdout}");
    // ... and the bidding rows by what each side bid there.
    assert!(stdout.contains("split by what each bid"), "{stdout}");
    assert!(
        stdout
            .lines()
            .any(|line| line.starts_with("round-1 bid") && line.contains("pass")),
        "{stdout}"
    );
    let again = trainer(&[&args[..], &["--threads", "1"]].concat(), "");
    let numbers = |out: &str| -> String {
        out.lines()
            .filter(|line| !line.contains("threads"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(numbers(&stdout), numbers(&text(&again.stdout)));
}

/// `eval --games`: whole duplicate games to the target with the score in
/// view; games won with an interval, points per hand beside, the same on
/// any thread count.
#[test]
fn eval_plays_duplicate_games_to_the_target() {
    let args = [
        "eval",
        "--a",
        "heuristic",
        "--b",
        "random",
        "--games",
        "30",
        "--target",
        "5",
        "--seed",
        "2",
    ];
    let first = trainer(&args, "");
    assert!(first.status.success(), "{}", text(&first.stderr));
    let stdout = text(&first.stdout);
    assert!(stdout.contains("60 games to 5"), "{stdout}");
    assert!(stdout.contains("games won: A "), "{stdout}");
    assert!(
        stdout.contains("95% interval over the pairs of games"),
        "{stdout}"
    );
    assert!(stdout.contains("points per hand minus B's"), "{stdout}");
    let again = trainer(&[&args[..], &["--threads", "1"]].concat(), "");
    let numbers = |out: &str| -> String {
        out.lines()
            .map(|line| line.split(", seed").next().unwrap_or(line))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(numbers(&stdout), numbers(&text(&again.stdout)));
    let stderr = refused(&trainer(
        &["eval", "--a", "heuristic", "--b", "random", "--games", "1"],
        "",
    ));
    assert!(stderr.contains("too few"), "{stderr}");
    let stderr = refused(&trainer(
        &[
            "eval",
            "--a",
            "heuristic",
            "--b",
            "random",
            "--games",
            "4",
            "--target",
            "0",
        ],
        "",
    ));
    assert!(stderr.contains("--target"), "{stderr}");
}

#[test]
fn eval_explains_bad_bots_and_hand_counts() {
    let stderr = refused(&trainer(&["eval", "--a", "wizard", "--b", "random"], ""));
    assert!(
        stderr.contains("unknown bot 'wizard'") && stderr.contains("pimc:WORLDS"),
        "{stderr}"
    );

    let output = trainer(&["eval", "--a", "pimc:lots", "--b", "random"], "");
    assert!(
        text(&output.stderr).contains("pimc:50"),
        "{}",
        text(&output.stderr)
    );

    let stderr = refused(&trainer(
        &["eval", "--a", "heuristic", "--b", "random", "--hands", "7"],
        "",
    ));
    assert!(stderr.contains("even number"), "{stderr}");

    let stderr = refused(&trainer(
        &[
            "eval",
            "--a",
            "policy:/nonexistent/policy.bin",
            "--b",
            "random",
        ],
        "",
    ));
    assert!(stderr.contains("/nonexistent/policy.bin"), "{stderr}");
}

#[test]
fn exploit_explains_a_missing_or_foreign_file_and_too_few_deals() {
    let stderr = refused(&trainer(
        &["exploit", "--policy", "/nonexistent/policy.bin"],
        "",
    ));
    assert!(stderr.contains("/nonexistent/policy.bin"), "{stderr}");
    let foreign = std::env::temp_dir().join(format!("exploit-foreign-{}.bin", std::process::id()));
    std::fs::write(&foreign, b"not a policy file at all").unwrap();
    let stderr = refused(&trainer(
        &["exploit", "--policy", foreign.to_str().unwrap()],
        "",
    ));
    std::fs::remove_file(&foreign).ok();
    assert!(stderr.contains("reading the policy"), "{stderr}");
    let stderr = refused(&trainer(
        &[
            "exploit",
            "--policy",
            "/nonexistent/policy.bin",
            "--deals",
            "1",
        ],
        "",
    ));
    assert!(stderr.contains("--deals 1"), "{stderr}");
}

#[test]
fn play_asks_again_on_bad_input_and_ends_cleanly_at_end_of_input() {
    // Nonsense, an out-of-range number, then a valid first move every time.
    let mut input = String::from("hello\n99\n\n");
    input.push_str(&"1\n".repeat(400));
    let output = trainer(&["play", "--ascii", "--seed", "3"], &input);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert!(stdout.contains("'hello' is not a move"), "{stdout}");
    assert!(stdout.contains("'99' is not a move"), "{stdout}");
    assert!(stdout.contains("Upcard:"), "{stdout}");
    assert!(stdout.contains("takes the trick"), "{stdout}");
    assert!(stdout.contains("win the game"), "{stdout}");
    assert!(stdout.trim_end().ends_with("Bye."), "{stdout}");
}

#[test]
fn a_closed_stdout_stops_the_output_without_a_panic() {
    // The reading end is closed before the trainer starts, so its first
    // line meets a pipe with no reader. Closing it after `spawn` raced the
    // trainer: on a loaded machine a short eval could write its whole report
    // into the pipe's buffer first and exit 0.
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let child = Command::new(env!("CARGO_BIN_EXE_trainer"))
        .args([
            "eval",
            "--a",
            "heuristic",
            "--b",
            "random",
            "--hands",
            "200",
        ])
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .expect("the trainer binary runs");
    let output = child.wait_with_output().expect("the trainer finishes");
    let stderr = text(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(output.status.code(), Some(141), "{stderr}");
}

/// A round robin: every pair's match and the ratings, saved as it goes;
/// run again with a bot added, only the new pairs are played, and the
/// pairs already played keep their numbers.
#[test]
fn an_arena_rates_a_panel_and_adding_a_bot_plays_only_its_pairs() {
    let dir = std::env::temp_dir().join(format!("trainer-arena-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    let dir_text = dir.to_str().unwrap();
    let arena = |bots: &[&str]| {
        let mut args = vec!["arena", "--hands", "300", "--dir", dir_text];
        for bot in bots {
            args.extend(["--bot", bot]);
        }
        trainer(&args, "")
    };
    let first = arena(&["random", "h=heuristic"]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let table = text(&first.stdout);
    assert!(table.contains("random  h"), "{table}");
    let rating_line = |table: &str, bot: &str| -> String {
        table
            .lines()
            .skip_while(|line| !line.starts_with("bot "))
            .find(|line| line.starts_with(&format!("{bot} ")))
            .unwrap_or_else(|| panic!("no rating of {bot} in {table}"))
            .to_owned()
    };
    let share = |line: &str| -> f64 {
        line.split_whitespace()
            .nth(1)
            .unwrap()
            .trim_end_matches('%')
            .parse()
            .unwrap()
    };
    assert!(
        share(&rating_line(&table, "h")) > share(&rating_line(&table, "random")),
        "{table}"
    );
    for file in ["arena.json", "arena.md", "ratings.svg"] {
        assert!(dir.join(file).is_file(), "{file}");
    }
    let pair_line = |table: &str| {
        table
            .lines()
            .find(|line| line.starts_with("random  h"))
            .unwrap()
            .to_owned()
    };
    let second = arena(&["random", "h=heuristic", "pimc:3"]);
    assert!(second.status.success(), "{}", text(&second.stderr));
    let progress = text(&second.stderr);
    assert!(
        !progress.contains("random vs h:"),
        "an old pair was replayed: {progress}"
    );
    assert!(
        progress.contains("random vs pimc:3: deals 0..150"),
        "{progress}"
    );
    assert!(progress.contains("h vs pimc:3: deals 0..150"), "{progress}");
    let table_two = text(&second.stdout);
    assert_eq!(pair_line(&table), pair_line(&table_two));
    assert!(table_two.contains("3 bots"), "{table_two}");

    let renamed = refused(&arena(&["h=pimc:3", "random"]));
    assert!(renamed.contains("already has a bot named 'h'"), "{renamed}");
    let reseeded = refused(&trainer(
        &[
            "arena",
            "--bot",
            "random",
            "--bot",
            "heuristic",
            "--seed",
            "9",
            "--dir",
            dir_text,
        ],
        "",
    ));
    assert!(reseeded.contains("--seed 1"), "{reseeded}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The same panel in games: whole duplicate games to the target beside its
/// hands in one arena file, rated on games won; more games play only the
/// new ones, and games to another target are refused beside them.
#[test]
fn an_arena_in_games_rates_games_won_beside_its_hands_and_resumes() {
    let dir = std::env::temp_dir().join(format!("trainer-arena-games-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    let dir_text = dir.to_str().unwrap();
    let arena = |extra: &[&str]| {
        let mut args = vec![
            "arena",
            "--bot",
            "random",
            "--bot",
            "h=heuristic",
            "--dir",
            dir_text,
        ];
        args.extend(extra);
        trainer(&args, "")
    };
    let hands = arena(&["--hands", "100"]);
    assert!(hands.status.success(), "{}", text(&hands.stderr));
    let games = arena(&["--games", "20"]);
    assert!(games.status.success(), "{}", text(&games.stderr));
    let table = text(&games.stdout);
    assert!(
        table.contains("40 games to 10 a pair (20 shared sequences of deals"),
        "{table}"
    );
    assert!(
        table.contains("the share of the games a bot wins"),
        "{table}"
    );
    let pair = table
        .lines()
        .find(|line| line.starts_with("random  h"))
        .unwrap_or_else(|| panic!("{table}"));
    let won: f64 = pair
        .split_whitespace()
        .nth(5)
        .unwrap()
        .trim_end_matches('%')
        .parse()
        .unwrap();
    assert!(won < 20.0, "random wins few games to 10: {pair}");
    let saved = std::fs::read_to_string(dir.join("arena.json")).unwrap();
    assert!(saved.contains("\"games\":[") && saved.contains("\"target\":10"));
    assert!(
        std::fs::read_to_string(dir.join("arena.md"))
            .unwrap()
            .contains("games won")
    );

    let more = arena(&["--games", "30"]);
    assert!(more.status.success(), "{}", text(&more.stderr));
    let progress = text(&more.stderr);
    assert!(
        progress.contains("random vs h: games' sequences of deals 20..30 of 30"),
        "{progress}"
    );
    let again = arena(&["--hands", "100"]);
    assert!(again.status.success());
    assert!(
        !text(&again.stderr).contains("random vs h:"),
        "the hands were kept"
    );
    let other_target = refused(&arena(&["--games", "30", "--target", "5"]));
    assert!(other_target.contains("--target 10"), "{other_target}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A vendored real record (see crates/euchre-game/tests/egn/NOTICE.md).
fn egn_fixture(name: &str) -> String {
    format!(
        "{}/../euchre-game/tests/egn/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn analyze_judges_a_real_final_and_names_the_players() {
    let file = egn_fixture("VWEC_Finals_Annotated.egn");
    let output = trainer(&["analyze", &file, "--bot", "pimc:20"], "");
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert!(stdout.contains("13 deals replayed, 0 refused"), "{stdout}");
    for player in ["WWMM (N)", "Llama (E)", "Euchrazy1 (S)", "LeftyKnavey (W)"] {
        assert!(stdout.contains(player), "{player}: {stdout}");
    }
    // Each largest loss with its uncertainty, which a player needs to
    // tell a mistake from noise.
    let largest = stdout
        .split("largest losses")
        .nth(1)
        .and_then(|rest| rest.split("\n\n").next())
        .expect("largest losses");
    let losses: Vec<&str> = largest.lines().filter(|l| l.contains(" loss ")).collect();
    assert!(!losses.is_empty(), "{largest}");
    assert!(losses.iter().all(|l| l.contains(" ± ")), "{largest}");
    // Moves in a player's words, cards as `10♠`: no notation (`play Ts`,
    // `call d`) in the report.
    let notation = ["c", "d", "h", "s"].iter().any(|suit| {
        largest.contains(&format!("call {suit} "))
            || ["9", "T", "J", "Q", "K", "A"]
                .iter()
                .any(|rank| largest.contains(&format!("{rank}{suit} ")))
    });
    assert!(!notation, "{largest}");
    assert!(
        ["♣", "♦", "♥", "♠"]
            .iter()
            .any(|suit| stdout.contains(suit)),
        "{stdout}"
    );
    assert!(stdout.contains("annotator:"), "{stdout}");
    // The comments in alternative lines are shown where the line branches
    // off, every one of them, whether or not the bot disagrees there.
    assert_eq!(
        stdout
            .matches("annotator (in an alternative line from here)")
            .count(),
        7,
        "{stdout}"
    );

    // The JSON holds every decision with each option's value.
    let output = trainer(&["analyze", &file, "--bot", "pimc:20", "--json"], "");
    assert!(output.status.success(), "{}", text(&output.stderr));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let deals = json[0]["deals"].as_array().unwrap();
    assert_eq!(deals.len(), 13);
    let decision = &deals[0]["decisions"][0];
    assert!(decision["options"][0]["value"].is_number(), "{decision}");
    assert!(decision["loss"].as_f64().unwrap() >= 0.0);

    // The heuristic has no values: agreement only, no loss.
    let output = trainer(&["analyze", &file, "--bot", "heuristic", "--json"], "");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(json[0]["deals"][0]["decisions"][0]["loss"].is_null());
}

/// A judge that plays for the game judges each decision from the record's
/// score, in chances of winning: each deal carries the score it was dealt
/// at, following from the last deal's points, and every value is a chance.
#[test]
fn analyze_judges_in_chances_of_winning_from_the_records_score() {
    let file = egn_fixture("VWEC_Finals_Annotated.egn");
    let output = trainer(&["analyze", &file, "--bot", "pimc:20,game", "--json"], "");
    assert!(output.status.success(), "{}", text(&output.stderr));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let game = &json[0];
    assert_eq!(game["unit"], "chance");
    let deals = game["deals"].as_array().unwrap();
    assert_eq!(deals.len(), 13);
    let mut expected = [0u64, 0];
    for deal in deals {
        let score: Vec<u64> = deal["score"]
            .as_array()
            .expect("a score for every deal")
            .iter()
            .map(|p| p.as_u64().unwrap())
            .collect();
        assert_eq!(score, expected, "deal {}", deal["number"]);
        for decision in deal["decisions"].as_array().unwrap() {
            for option in decision["options"].as_array().unwrap() {
                let value = option["value"].as_f64().unwrap();
                assert!((0.0..=1.0).contains(&value), "{option}");
            }
        }
        expected[0] += deal["points"][0].as_u64().unwrap();
        expected[1] += deal["points"][1].as_u64().unwrap();
    }
    let stdout = text(&trainer(&["analyze", &file, "--bot", "pimc:20,game"], "").stdout);
    assert!(stdout.contains("chance of winning the game"), "{stdout}");
    assert!(stdout.contains("dealt at NS "), "{stdout}");
    // A score-blind judge counts points, as before.
    let output = trainer(&["analyze", &file, "--bot", "pimc:20", "--json"], "");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json[0]["unit"], "points");
}

/// Beside each loss the analysis states the same judge's loss in the other
/// unit, from the same worlds: a score-blind judge's chances are the game
/// judge's, and the game judge's points the blind judge's, decision by
/// decision and in the players' totals.
#[test]
fn analyze_states_the_other_unit_beside_from_the_same_worlds() {
    let file = egn_fixture("VWEC_Finals_Annotated.egn");
    let judged = |bot: &str| -> serde_json::Value {
        let output = trainer(&["analyze", &file, "--bot", bot, "--json"], "");
        assert!(output.status.success(), "{}", text(&output.stderr));
        serde_json::from_slice::<serde_json::Value>(&output.stdout).unwrap()[0].clone()
    };
    let (points, chances) = (judged("pimc:20"), judged("pimc:20,game"));
    assert_eq!(points["beside_unit"], "chance");
    assert_eq!(chances["beside_unit"], "points");
    let decisions = |game: &serde_json::Value| -> Vec<serde_json::Value> {
        game["deals"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|deal| deal["decisions"].as_array().unwrap().clone())
            .collect()
    };
    let (blind, for_game) = (decisions(&points), decisions(&chances));
    assert_eq!(blind.len(), for_game.len());
    assert!(!blind.is_empty());
    for (blind, for_game) in blind.iter().zip(&for_game) {
        for (judged, other) in [(blind, for_game), (for_game, blind)] {
            let beside = &judged["beside"];
            assert_eq!(beside["loss"], other["loss"], "{judged}");
            assert_eq!(beside["loss_error"], other["loss_error"], "{judged}");
            assert_eq!(beside["preferred"], other["preferred"], "{judged}");
            let values: Vec<&serde_json::Value> = other["options"]
                .as_array()
                .unwrap()
                .iter()
                .map(|option| &option["value"])
                .collect();
            assert_eq!(
                beside["values"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .collect::<Vec<_>>(),
                values
            );
        }
    }
    for (row, other) in points["players"]
        .as_array()
        .unwrap()
        .iter()
        .zip(chances["players"].as_array().unwrap())
    {
        let close = |a: &serde_json::Value, b: &serde_json::Value| {
            (a.as_f64().unwrap() - b.as_f64().unwrap()).abs() < 1e-9
        };
        assert!(
            close(&row["beside_total_loss"], &other["total_loss"]),
            "{row}"
        );
        assert!(
            close(&other["beside_total_loss"], &row["total_loss"]),
            "{row}"
        );
    }
    let report = text(&trainer(&["analyze", &file, "--bot", "pimc:20"], "").stdout);
    assert!(report.contains("games lost"), "{report}");
    assert!(report.contains(" of a game"), "{report}");
}

#[test]
fn analyze_refuses_bad_files_with_the_reason() {
    let dir = std::env::temp_dir().join(format!("trainer-analyze-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, body: &[u8]| {
        let path = dir.join(name);
        std::fs::write(&path, body).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let cases = [
        (write("garbage.egn", b"not json at all"), "not JSON"),
        (write("binary.egnb", &[1, 0, 255, 254]), "not UTF-8"),
        (egn_fixture("invalid1.json"), "Euchre Layout Template"),
        (
            write(
                "future.egn",
                br#"{"fileType":"Euchre Game Notation","version":"3.0","metadata":{"players":["a","b","c","d"],"initialScore":[0,0]},"deals":[]}"#,
            ),
            "\"3.0\"",
        ),
        (
            write(
                "joker.egn",
                br#"{"fileType":"Euchre Game Notation","version":"1.4","metadata":{"players":["a","b","c","d"],"initialScore":[0,0],"ruleset":{"joker":true}},"deals":[]}"#,
            ),
            "joker",
        ),
        (dir.join("missing.egn").to_str().unwrap().to_owned(), "cannot read"),
    ];
    for (path, expected) in cases {
        let stderr = refused(&trainer(&["analyze", &path], ""));
        assert!(stderr.contains(expected), "{path}: {stderr}");
    }

    // A renege is reported with its deal and trick, and the other deals
    // are still analysed.
    let stdout = text(
        &trainer(
            &["analyze", &egn_fixture("test.egn"), "--bot", "pimc:4"],
            "",
        )
        .stdout,
    );
    assert!(
        stdout.contains("refused: hand 2 (dealNumber 1): renege in trick 1"),
        "{stdout}"
    );

    // One bad file among good ones: the good ones are still analysed and
    // printed (in JSON, the bad one is an entry with its error), and the
    // command exits 1 naming it.
    let good = egn_fixture("Custom_Scenario.egn");
    let bad = write("bad.egn", b"not json at all");
    let output = trainer(
        &["analyze", &good, &bad, "--bot", "heuristic", "--json"],
        "",
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let files = json.as_array().unwrap();
    assert_eq!(files.len(), 2, "{json}");
    assert!(files[0]["deals"].is_array() && files[0]["file"] == good.as_str());
    assert!(
        files[1]["error"].as_str().unwrap().contains("not JSON"),
        "{json}"
    );
    assert!(
        text(&output.stderr).contains("1 of 2 files"),
        "{}",
        text(&output.stderr)
    );
    let output = trainer(&["analyze", &good, &bad, "--bot", "heuristic"], "");
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stdout).contains("deals replayed"));
}

#[test]
fn play_saves_the_game_as_egn_and_shows_hints_on_request() {
    let dir = std::env::temp_dir().join(format!("trainer-play-egn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let save = dir.join("game.egn");
    let input = "1\n".repeat(400);
    let output = trainer(
        &[
            "play",
            "--ascii",
            "--seed",
            "3",
            "--hints",
            "pimc:8",
            "--save",
            save.to_str().unwrap(),
        ],
        &input,
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert!(
        stdout.contains("1) pass ["),
        "a value beside each move: {stdout}"
    );
    assert!(
        stdout.contains("Hint: Best: ")
            && (stdout.contains("more than") || stdout.contains("as good as"))
            && stdout.contains(": it "),
        "the best move, by how much, and what it does: {stdout}"
    );
    // The saved game replays: analyse it.
    let analysed = trainer(
        &["analyze", save.to_str().unwrap(), "--bot", "heuristic"],
        "",
    );
    assert!(analysed.status.success(), "{}", text(&analysed.stderr));
    assert!(text(&analysed.stdout).contains("0 refused"));
    // Without --hints no values are shown.
    let plain = text(&trainer(&["play", "--ascii", "--seed", "3"], &input).stdout);
    assert!(!plain.contains("1) pass ["), "{plain}");
    assert!(!plain.contains("Hint:"), "{plain}");
}

/// In the terminal too: `u` takes a move back in a practice game, and
/// forced cards are played on request, so the person is never asked to
/// choose between one move.
#[test]
fn play_takes_moves_back_in_practice_and_plays_forced_cards() {
    let input = format!("1\nu\n{}", "1\n".repeat(400));
    let output = trainer(
        &[
            "play",
            "--ascii",
            "--seed",
            "3",
            "--practice",
            "--play-forced",
        ],
        &input,
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert!(stdout.contains("u takes your last move back"), "{stdout}");
    assert!(stdout.contains("(taken back)"), "{stdout}");
    let asked: Vec<&str> = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("Your move: "))
        .collect();
    assert!(asked.len() > 10, "{stdout}");
    assert!(
        asked.iter().all(|moves| moves.contains("2) ")),
        "asked to choose one move: {asked:?}"
    );
    // Outside practice, u is not a move.
    let plain = text(&trainer(&["play", "--ascii", "--seed", "3"], "u\nq\n").stdout);
    assert!(plain.contains("'u' is not a move"), "{plain}");
}

/// Every command that seats bots lists every bot kind in its help, from
/// the grammar's one description.
#[test]
fn every_command_that_seats_bots_lists_every_bot_kind() {
    for command in [
        "eval",
        "arena",
        "play",
        "serve",
        "act",
        "analyze",
        "win-model",
    ] {
        let output = trainer(&[command, "--help"], "");
        assert!(output.status.success(), "{command}");
        let help = String::from_utf8_lossy(&output.stdout);
        for kind in [
            "heuristic",
            "pimc:WORLDS",
            "policy-argmax:FILE",
            "search:WORLDS:FILE",
            "search-bids:WORLDS:FILE",
            "bids:BOT+BOT",
            ",game",
            "strongest:RUN",
            "table:RUN",
            "cfr0:RUN",
        ] {
            assert!(help.contains(kind), "{command} --help lacks {kind}");
        }
    }
}
