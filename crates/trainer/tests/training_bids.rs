//! Training end to end: export, the leaves a run values positions with,
//! the bids it trains against the heuristic's, and bids refit to a
//! card-play table, each a run setting that the policy file carries.

mod support;

use std::path::Path;
use std::process::Command;

use support::{
    RunPaths, TempDir, digest, full_play_in, ok, refused, text, train_bidding as train, trainer,
};

#[test]
fn export_writes_a_policy_and_says_what_was_learned() {
    let temp = TempDir::new("export");
    let run = temp.run("run");
    train(&run, "memory", &["--iterations", "300"]);
    let out = temp.run("policy.bin");
    let stdout = ok(&trainer(&["export", "--run-dir", &run, "--out", &out]));
    assert!(stdout.contains("exported"), "{stdout}");
    assert!(stdout.contains("right bower turned up"), "{stdout}");
    assert!(std::fs::metadata(&out).expect("a policy file").len() > 1000);

    // The exported bidding policy plays (the heuristic takes its card play)...
    let spec = format!("policy:{out}");
    let played = ok(&trainer(&[
        "eval", "--a", &spec, "--b", "random", "--hands", "200",
    ]));
    assert!(
        played.contains("past the phase's horizon (played by heuristic)"),
        "{played}"
    );
    // Open-hand leaves assume open-hand play: a heuristic after the policy
    // is a mismatch the match reports before its result.
    let warned = text(&trainer(&["eval", "--a", &spec, "--b", "random", "--hands", "2"]).stderr);
    assert!(
        warned.contains("trained on open-hand leaves, but heuristic plays past its phase"),
        "{warned}"
    );
    // A composite bot hands the decisions past the horizon to the bot
    // after the `+`, which may be any bot, a composite included.
    let composite = format!("policy:{out}+pimc:3");
    let played = ok(&trainer(&[
        "eval",
        "--a",
        &composite,
        "--b",
        "heuristic",
        "--hands",
        "40",
    ]));
    assert!(played.contains("+pimc:3"), "{played}");
    assert!(
        !text(&trainer(&["eval", "--a", &composite, "--b", "random", "--hands", "2"]).stderr)
            .contains("warning"),
        "open-hand leaves followed by PIMC is the matching pairing"
    );
    assert!(
        played.contains("past the phase's horizon (played by pimc:3)"),
        "{played}"
    );
    let nested = format!("policy-argmax:{out}+policy:{out}+random");
    let played = ok(&trainer(&[
        "eval", "--a", &nested, "--b", "random", "--hands", "20",
    ]));
    assert!(played.contains("(played by policy:"), "{played}");
    for (bad, expected) in [
        (
            format!("policy:{out}+pimc:x"),
            "pimc needs a number of worlds",
        ),
        (format!("policy:{out}+"), "unknown bot"),
        ("policy:+heuristic".to_owned(), "before the '+'"),
    ] {
        let refused = trainer(&["eval", "--a", &bad, "--b", "random", "--hands", "2"]);
        assert!(!refused.status.success(), "{bad}");
        let stderr = text(&refused.stderr);
        assert!(stderr.contains(expected), "{bad}: {stderr}");
    }
    // ...but not under rules it was never trained for.
    let profile = temp.run("lone.toml");
    std::fs::write(&profile, "[rules]\nlone_defender = true\n").expect("a profile");
    let refused = trainer(&["eval", "--a", &spec, "--b", "random", "--config", &profile]);
    assert!(!refused.status.success());
    let stderr = text(&refused.stderr);
    assert!(
        stderr.contains("was trained under") && stderr.contains("--config"),
        "{stderr}"
    );
}

/// Trains 300 bidding iterations with `leaves`, checks that the run
/// records them, and exports the policy; returns the run and policy paths.
fn train_with_leaves(temp: &TempDir, leaves: &str) -> (String, String) {
    let run = temp.run("run");
    let trained = train(&run, "memory", &["--iterations", "300", "--leaves", leaves]);
    assert!(trained.contains("300 iterations"), "{trained}");
    let settings = std::fs::read_to_string(format!("{run}/settings.toml")).expect("settings");
    assert!(
        settings.contains(&format!("leaves = \"{leaves}\"")),
        "{settings}"
    );
    let out = temp.run("policy.bin");
    ok(&trainer(&["export", "--run-dir", &run, "--out", &out]));
    (run, out)
}

/// What `eval` warns about the policy at `policy` followed by `beyond`.
fn eval_warnings(policy: &str, beyond: &str) -> String {
    let output = trainer(&[
        "eval",
        "--a",
        &format!("policy:{policy}+{beyond}"),
        "--b",
        "random",
        "--hands",
        "2",
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    text(&output.stderr)
}

/// `--out` with a bare file name writes into the current directory; the
/// directory sync after the rename once tried to open the empty path and
/// failed after the file was written.
#[test]
fn export_to_a_bare_file_name_writes_into_the_current_directory() {
    let temp = TempDir::new("bare-out");
    let run = temp.run("run");
    train(&run, "memory", &["--iterations", "100"]);
    let output = Command::new(env!("CARGO_BIN_EXE_trainer"))
        .args(["export", "--run-dir", "run", "--out", "bare.bin"])
        .current_dir(&temp.0)
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("the trainer binary runs");
    ok(&output);
    let policy = euchre_bots::policy_file::PolicyFile::load(&temp.0.join("bare.bin"));
    assert!(policy.is_ok(), "{policy:?}");
}

#[test]
fn heuristic_play_leaves_are_a_run_setting_recorded_in_the_policy() {
    let temp = TempDir::new("leaves");
    let (run, out) = train_with_leaves(&temp, "heuristic-play");
    // `resume` keeps the run's leaves without being told them.
    let resumed = ok(&trainer(&[
        "resume",
        "--run-dir",
        &run,
        "--iterations",
        "100",
    ]));
    assert!(resumed.contains("run total 400 iterations"), "{resumed}");

    let matching = eval_warnings(&out, "heuristic");
    assert!(!matching.contains("plays past its phase"), "{matching}");
    let warning = eval_warnings(&out, "pimc:2");
    assert!(
        warning.contains("trained on heuristic-play leaves, but pimc:2 plays past its phase"),
        "{warning}"
    );

    let refused = trainer(&[
        "train",
        "--leaves",
        "rollouts",
        "--run-dir",
        &temp.run("other"),
    ]);
    assert!(!refused.status.success());
    let error = text(&refused.stderr);
    assert!(
        error.contains("open-hand, heuristic-play, pimc-calibrated or table-play"),
        "{error}"
    );
}

/// Bids trained against the heuristic's bids are a run setting: saved,
/// kept by `resume`, named by `status`, carried by the policy and by a
/// full-play run's bidding stage; the run guards it, and every setting
/// that cannot be met is refused by name.
#[test]
fn bids_trained_against_the_heuristics_bids_are_a_run_setting_that_the_policy_carries() {
    use euchre_bots::opponent_bids::OpponentBids;
    use euchre_bots::policy_file::PolicyFile;

    let temp = TempDir::new("opponent-bids");
    let modelled = temp.run("modelled");
    let plain = temp.run("plain");
    let model = ["--opponent-bids", "heuristic:0.5"];
    train(
        &modelled,
        "memory",
        &[&["--iterations", "2000"][..], &model].concat(),
    );
    train(&plain, "memory", &["--iterations", "2000"]);
    let settings = std::fs::read_to_string(format!("{modelled}/settings.toml")).unwrap();
    assert!(
        settings.contains("opponent_bids = \"heuristic:0.5\""),
        "{settings}"
    );
    // An equilibrium run's settings are written as they always were.
    let settings = std::fs::read_to_string(format!("{plain}/settings.toml")).unwrap();
    assert!(!settings.contains("opponent_bids"), "{settings}");
    assert_ne!(digest(&modelled), digest(&plain));
    let status = ok(&trainer(&["status", "--run-dir", &modelled]));
    assert!(
        status.contains("opponents  bids trained against heuristic:0.5"),
        "{status}"
    );
    let status = ok(&trainer(&["status", "--run-dir", &plain]));
    assert!(!status.contains("opponents"), "{status}");

    // `resume` keeps it; another model is another run.
    let resumed = ok(&trainer(&[
        "resume",
        "--run-dir",
        &modelled,
        "--iterations",
        "100",
    ]));
    assert!(resumed.contains("run total 2,100 iterations"), "{resumed}");
    let error = refused(&trainer(&[
        "train",
        "--seed",
        "7",
        "--run-dir",
        &modelled,
        "--opponent-bids",
        "heuristic:1",
    ]));
    assert!(
        error.contains(
            "opponents' bids: the run has heuristic:0.5, this command asks for heuristic:1"
        ),
        "{error}"
    );

    let out = temp.run("modelled.bin");
    ok(&trainer(&["export", "--run-dir", &modelled, "--out", &out]));
    let policy = PolicyFile::load(out.as_ref()).expect("policy");
    assert_eq!(
        policy.meta.recipe.opponent_bids,
        OpponentBids::Heuristic { share: 0.5 }
    );
    let plain_out = temp.run("plain.bin");
    ok(&trainer(&[
        "export",
        "--run-dir",
        &plain,
        "--out",
        &plain_out,
    ]));
    let policy = PolicyFile::load(plain_out.as_ref()).expect("policy");
    assert_eq!(policy.meta.recipe.opponent_bids, OpponentBids::Equilibrium);

    // Full play's bidding stage trains against the model too.
    let staged = temp.run("staged");
    ok(&full_play_in(
        &staged,
        &[
            &["--bidding-iterations", "300", "--iterations", "20"][..],
            &model,
        ]
        .concat(),
    ));
    let stage = std::fs::read_to_string(format!("{staged}/bidding/settings.toml")).unwrap();
    assert!(
        stage.contains("opponent_bids = \"heuristic:0.5\""),
        "{stage}"
    );

    // Fixed bids have nothing to train against a model; bad models are
    // explained.
    let error = refused(&full_play_in(
        &temp.run("fixed"),
        &[&["--bidding-from", &out][..], &model].concat(),
    ));
    assert!(
        error.contains("--bidding-from fixes every bid; drop one of the two"),
        "{error}"
    );
    for bad in ["heuristic:0", "heuristic:2", "pimc:50"] {
        let error = refused(&trainer(&[
            "train",
            "--run-dir",
            &temp.run("bad"),
            "--opponent-bids",
            bad,
        ]));
        assert!(
            error.contains(&format!("'{bad}' is not an opponent-bids setting"))
                && error.contains("heuristic:SHARE"),
            "{error}"
        );
    }
}

/// The user's command trains its bidding stage as an equilibrium without
/// being told (nothing recorded, as before the modelled default); a run
/// made under the modelled default (`heuristic:0.9`, recorded in its
/// settings) goes on as it was made when the command does not say, and
/// saying another model is another run.
#[test]
fn full_plays_bids_are_an_equilibrium_by_default_and_modelled_runs_resume_as_made() {
    use euchre_bots::opponent_bids::OpponentBids;
    use euchre_bots::policy_file::PolicyFile;

    let temp = TempDir::new("default-opponent-bids");
    let budget = ["--bidding-iterations", "300", "--iterations", "20"];
    let fresh = temp.run("fresh");
    ok(&full_play_in(&fresh, &budget));
    for settings in [
        format!("{fresh}/bidding/settings.toml"),
        format!("{fresh}/settings.toml"),
    ] {
        let settings = std::fs::read_to_string(settings).unwrap();
        assert!(!settings.contains("opponent_bids"), "{settings}");
    }
    let status = ok(&trainer(&["status", "--run-dir", &fresh]));
    assert!(!status.contains("bids trained against"), "{status}");
    let blueprint = PolicyFile::load(format!("{fresh}/bidding/policy.bin").as_ref()).unwrap();
    assert_eq!(
        blueprint.meta.recipe.opponent_bids,
        OpponentBids::Equilibrium
    );

    // As a run was made under the modelled default: the model recorded.
    let old = temp.run("old");
    let modelled = ["--opponent-bids", "heuristic:0.9"];
    ok(&full_play_in(&old, &[&budget[..], &modelled].concat()));
    let recorded = "opponent_bids = \"heuristic:0.9\"";
    let settings = std::fs::read_to_string(format!("{old}/settings.toml")).unwrap();
    assert!(settings.contains(recorded), "{settings}");
    let resumed = ok(&full_play_in(&old, &["--iterations", "20"]));
    assert!(resumed.contains("run total 40 iterations"), "{resumed}");
    let settings = std::fs::read_to_string(format!("{old}/settings.toml")).unwrap();
    assert!(settings.contains(recorded), "{settings}");
    let status = ok(&trainer(&["status", "--run-dir", &old]));
    assert!(
        status.contains("opponents  bids trained against heuristic:0.9"),
        "{status}"
    );
    // Saying another model is still another run.
    let error = refused(&full_play_in(
        &old,
        &["--iterations", "20", "--opponent-bids", "equilibrium"],
    ));
    assert!(
        error.contains(
            "opponents' bids: the run has heuristic:0.9, this command asks for equilibrium"
        ),
        "{error}"
    );

    // The bidding phase's blueprint is the equilibrium it always was.
    let bidding = temp.run("bidding");
    train(&bidding, "memory", &["--iterations", "300"]);
    let settings = std::fs::read_to_string(format!("{bidding}/settings.toml")).unwrap();
    assert!(!settings.contains("opponent_bids"), "{settings}");
}

#[test]
fn pimc_calibrated_leaves_train_bidding_pair_with_pimc_and_refuse_other_phases() {
    let temp = TempDir::new("calibrated");
    let (run, out) = train_with_leaves(&temp, "pimc-calibrated");
    // Other leaves on the same run directory are a different run.
    let other = trainer(&["train", "--leaves", "open-hand", "--run-dir", &run]);
    assert!(!other.status.success());
    assert!(
        text(&other.stderr)
            .contains("the run has pimc-calibrated, this command asks for open-hand"),
        "{}",
        text(&other.stderr)
    );

    // Calibrated to PIMC's play, so PIMC after the policy is the pairing.
    let matching = eval_warnings(&out, "pimc:2");
    assert!(!matching.contains("plays past its phase"), "{matching}");
    let mismatched = eval_warnings(&out, "heuristic");
    assert!(
        mismatched
            .contains("trained on pimc-calibrated leaves, but heuristic plays past its phase"),
        "{mismatched}"
    );

    // The calibration was measured at the first lead: it cannot value a
    // play-N or full-play leaf, and says what to do instead.
    let refused = trainer(&[
        "train",
        "--phase",
        "play-2",
        "--leaves",
        "pimc-calibrated",
        "--run-dir",
        &temp.run("play"),
    ]);
    assert!(!refused.status.success());
    let error = text(&refused.stderr);
    assert!(
        error.contains("use --phase bidding, or --leaves open-hand for play-2"),
        "{error}"
    );
}

#[test]
fn bids_refit_to_a_card_play_table_are_valued_by_its_play_and_the_run_guards_it() {
    use euchre_bots::policy_file::PolicyFile;

    let temp = TempDir::new("table-play");
    // A card-play table: full play under a short bidding run's bids.
    let bidding = temp.run("bidding");
    train(&bidding, "memory", &["--iterations", "300", "--export"]);
    let cards = temp.run("cards");
    ok(&full_play_in(
        &cards,
        &[
            "--iterations",
            "200",
            "--bidding-from",
            &format!("{bidding}/policy.bin"),
            "--eval-every",
            "off",
            "--export",
        ],
    ));
    let table = format!("{cards}/policy.bin");
    let table_checksum = PolicyFile::load(table.as_ref()).expect("table").checksum();

    // Bids refit to it: a bidding run whose leaves the table plays out.
    let refit = temp.run("refit");
    train(
        &refit,
        "memory",
        &[
            "--leaves",
            "table-play",
            "--card-play-from",
            &table,
            "--iterations",
            "300",
            "--export",
        ],
    );
    let settings = std::fs::read_to_string(format!("{refit}/settings.toml")).expect("settings");
    assert!(settings.contains("leaves = \"table-play\""), "{settings}");
    assert!(settings.contains("[identity.card_play_from]"), "{settings}");
    let status = ok(&trainer(&["status", "--run-dir", &refit]));
    assert!(
        status.contains("leaves     table-play: every seat plays the rest by the card-play table"),
        "{status}"
    );
    let exported = PolicyFile::load(format!("{refit}/policy.bin").as_ref()).expect("policy");
    let recorded = exported
        .meta
        .recipe
        .card_play_from
        .clone()
        .expect("the file names the table its bids were refit to");
    assert_eq!(recorded.checksum, table_checksum);
    // Other leaves give other bids from the same seed and deals.
    let open_hand = temp.run("open-hand");
    train(&open_hand, "memory", &["--iterations", "300"]);
    assert_ne!(digest(&refit), digest(&open_hand));

    // Played with its table, the refit policy is the pairing its leaves
    // assumed; with PIMC, it is not.
    let refit_policy = format!("{refit}/policy.bin");
    let matching = eval_warnings(&refit_policy, &format!("policy-argmax:{table}"));
    assert!(!matching.contains("plays past its phase"), "{matching}");
    let mismatched = eval_warnings(&refit_policy, "pimc:2");
    assert!(
        mismatched.contains("trained on table-play leaves, but pimc:2 plays past its phase"),
        "{mismatched}"
    );
    // The same in a split, where the split's card player follows the bids.
    let split_warnings = |player: &str| {
        let output = trainer(&[
            "eval",
            "--a",
            &format!("bids:policy-argmax:{refit_policy}+{player}"),
            "--b",
            "random",
            "--hands",
            "2",
        ]);
        assert!(output.status.success(), "{}", text(&output.stderr));
        text(&output.stderr)
    };
    let matching = split_warnings(&format!("policy-argmax:{table}"));
    assert!(!matching.contains("plays past its phase"), "{matching}");
    let mismatched = split_warnings("pimc:2");
    assert!(
        mismatched.contains("trained on table-play leaves, but pimc:2 plays past its phase"),
        "{mismatched}"
    );
    let exploit = ok(&trainer(&[
        "exploit",
        "--policy",
        &refit_policy,
        "--deals",
        "20",
        "--worlds",
        "2",
    ]));
    assert!(
        exploit.contains("local best response (round-1 bids"),
        "{exploit}"
    );

    // Each contradiction is refused by name.
    let error = refused(&trainer(&[
        "train",
        "--leaves",
        "table-play",
        "--run-dir",
        &temp.run("no-table"),
    ]));
    assert!(error.contains("name one with --card-play-from"), "{error}");
    let error = refused(&trainer(&[
        "train",
        "--card-play-from",
        &table,
        "--run-dir",
        &temp.run("unused"),
    ]));
    assert!(error.contains("only table-play leaves read"), "{error}");
    let error = refused(&full_play_in(
        &temp.run("full"),
        &["--leaves", "table-play", "--card-play-from", &table],
    ));
    assert!(error.contains("full play has none"), "{error}");
    let error = refused(&trainer(&[
        "train",
        "--leaves",
        "table-play",
        "--card-play-from",
        &format!("{bidding}/policy.bin"),
        "--run-dir",
        &temp.run("bids-as-table"),
    ]));
    assert!(error.contains("does not play a whole hand"), "{error}");
    // A run pins the table by its header and loads it once, whole: a
    // damaged body is refused when the session opens, before the run
    // records anything.
    let mut damaged = std::fs::read(&table).expect("table");
    let last_entry = damaged.len() - 6;
    damaged[last_entry] ^= 1;
    let damaged_table = temp.run("damaged.bin");
    std::fs::write(&damaged_table, &damaged).expect("write");
    let damaged_run = temp.run("damaged-run");
    let error = refused(&trainer(&[
        "train",
        "--leaves",
        "table-play",
        "--card-play-from",
        &damaged_table,
        "--run-dir",
        &damaged_run,
    ]));
    assert!(
        error.contains("card-play table cannot be read")
            && error.contains("checksum does not match"),
        "{error}"
    );
    assert!(!Path::new(&format!("{damaged_run}/settings.toml")).exists());

    // A table replaced since the run started stops resume and export.
    ok(&full_play_in(
        &cards,
        &["--iterations", "10", "--eval-every", "off", "--export"],
    ));
    assert_ne!(
        PolicyFile::load(table.as_ref()).expect("table").checksum(),
        table_checksum
    );
    for command in [
        vec!["resume", "--run-dir", &refit, "--iterations", "10"],
        vec!["export", "--run-dir", &refit],
    ] {
        let error = refused(&trainer(&command));
        assert!(error.contains("changed since this run started"), "{error}");
    }
}

/// Bids for the game from a prior: the run trains only the score contexts
/// the score changes, and its export holds the prior's most likely bid at
/// every plain key beside the trained contexts' bids, its recipe naming
/// both the setting and the prior.
#[test]
fn bids_for_the_game_from_a_prior_keep_the_priors_plain_bids_and_train_the_score_contexts() {
    use euchre_bots::meta::BidsFor;
    use euchre_bots::policy_file::{PolicyFile, is_bidding_key, most_likely};
    use euchre_game::game::context::ScoreContext;
    use euchre_game::keys::InfoKey;
    use euchre_game::keys::bidding::context_of;

    let temp = TempDir::new("bids-for-game");
    let prior_run = temp.run("prior");
    train(&prior_run, "memory", &["--iterations", "300"]);
    let prior_path = temp.run("prior.bin");
    ok(&trainer(&[
        "export",
        "--run-dir",
        &prior_run,
        "--out",
        &prior_path,
    ]));
    let run = temp.run("game");
    train(
        &run,
        "memory",
        &[
            "--iterations",
            "300",
            "--bids-for",
            "game",
            "--bids-prior",
            &prior_path,
        ],
    );
    let out = temp.run("game.bin");
    let report = ok(&trainer(&["export", "--run-dir", &run, "--out", &out]));
    assert!(report.contains("round 1 by the score"), "{report}");
    let status = ok(&trainer(&["status", "--run-dir", &run]));
    assert!(
        status.contains("bids for  the game") && status.contains("prior.bin"),
        "{status}"
    );

    let prior = PolicyFile::load(Path::new(&prior_path)).unwrap();
    let game = PolicyFile::load(Path::new(&out)).unwrap();
    assert_eq!(game.meta.recipe.bids_for, BidsFor::Game);
    let named = game
        .meta
        .recipe
        .bids_prior
        .as_ref()
        .expect("the prior named");
    assert_eq!(named.checksum, prior.checksum());
    let prior_rows: std::collections::HashMap<u128, Vec<u16>> = prior
        .entries()
        .filter(|(key, _)| is_bidding_key(*key))
        .map(|(key, row)| (key, row.to_vec()))
        .collect();
    let (mut plain, mut contexts) = (0, 0);
    for (key, row) in game.entries() {
        match context_of(InfoKey(key)) {
            Some(ScoreContext::OPEN) => {
                plain += 1;
                let prior_row = prior_rows.get(&key).expect("a plain key is the prior's");
                let weights = |row: &[u16]| row.iter().map(|&p| f64::from(p)).collect::<Vec<_>>();
                let best = most_likely(&weights(prior_row));
                assert_eq!(row[best], u16::MAX, "the prior's most likely bid");
            }
            Some(_) => contexts += 1,
            None => panic!("a bidding run exports bids only"),
        }
    }
    assert_eq!(plain, prior_rows.len());
    assert!(contexts > 100, "{contexts} context keys trained");
}

/// Canadian loners end to end: a profile's `[rules]` sets the rule, a
/// bidding run trains under it, its export plays under it (the match
/// checks every action against the engine), and a policy trained under
/// the standard rules is refused for it by name.
#[test]
fn canadian_loners_train_export_and_play_under_their_own_rules() {
    let temp = TempDir::new("canadian");
    let profile = temp.run("canadian.toml");
    std::fs::create_dir_all(Path::new(&profile).parent().unwrap()).unwrap();
    std::fs::write(&profile, "[rules]\ncanadian_loners = true\n").expect("a profile");
    let run = temp.run("run");
    train(
        &run,
        "memory",
        &["--iterations", "2000", "--config", &profile],
    );
    let settings = std::fs::read_to_string(Path::new(&run).join("settings.toml")).unwrap();
    assert!(settings.contains("canadian_loners = true"), "{settings}");
    let out = temp.run("policy.bin");
    let exported = ok(&trainer(&["export", "--run-dir", &run, "--out", &out]));
    assert!(exported.contains("dealer's partner"), "{exported}");
    let spec = format!("policy-argmax:{out}");
    let played = ok(&trainer(&[
        "eval",
        "--a",
        &spec,
        "--b",
        "heuristic",
        "--hands",
        "400",
        "--config",
        &profile,
    ]));
    assert!(played.contains("hands"), "{played}");
    // The same policy under the standard rules: a key means another bid.
    let refused = trainer(&["eval", "--a", &spec, "--b", "random", "--hands", "2"]);
    assert!(!refused.status.success());
    let stderr = text(&refused.stderr);
    assert!(stderr.contains("canadian_loners=true"), "{stderr}");
}

/// `trainer search-bids` decides the bids the blueprint is unsure of,
/// keeps them in the run's policy file, which says so and still plays; it
/// keeps its progress file, named by the blueprint and the worlds, so the
/// bids come back in seconds after another export; a progress file it
/// cannot trust is refused by name.
#[test]
fn searched_bids_are_kept_in_the_policy_and_a_foreign_progress_file_is_refused() {
    let temp = TempDir::new("searched-bids");
    let run = temp.run("run");
    train(&run, "memory", &["--iterations", "300"]);
    ok(&trainer(&["export", "--run-dir", &run]));
    let policy = format!("{run}/policy.bin");
    let checksum = euchre_bots::policy_file::PolicyFile::read_header(Path::new(&policy))
        .unwrap()
        .checksum;
    let progress = Path::new(&run).join(format!("search-bids-{checksum:08x}-4w.progress"));
    std::fs::write(&progress, b"not a progress file").unwrap();
    let args = ["search-bids", "--run-dir", &run, "--worlds", "4", "--quiet"];
    let stderr = refused(&trainer(&args));
    assert!(stderr.contains("delete it to start over"), "{stderr}");
    std::fs::remove_file(&progress).unwrap();
    // A FIFO in its place is refused, not waited on.
    assert!(
        Command::new("mkfifo")
            .arg(&progress)
            .status()
            .unwrap()
            .success()
    );
    let stderr = refused(&trainer(&args));
    assert!(stderr.contains("not a regular file"), "{stderr}");
    std::fs::remove_file(&progress).unwrap();
    let stdout = ok(&trainer(&args));
    assert!(
        stdout.contains("bids the blueprint is unsure of"),
        "{stdout}"
    );
    assert!(stdout.contains("otherwise than the blueprint"), "{stdout}");
    assert!(
        progress.exists(),
        "the decisions are kept for the next export"
    );
    let searched = || {
        euchre_bots::policy_file::PolicyFile::read_header(Path::new(&policy))
            .unwrap()
            .meta
            .searched_bids
    };
    let first = searched().expect("the file says what it holds");
    assert!(first.keys > 0 && first.bot.starts_with("search-bids:4:"));
    let spec = format!("policy-argmax:{policy}");
    ok(&trainer(&[
        "eval", "--a", &spec, "--b", "random", "--hands", "20",
    ]));

    // Exported again, the policy is plain; the export names the kept
    // decisions, and the search puts every one back without deciding any.
    let exported = ok(&trainer(&["export", "--run-dir", &run]));
    assert!(searched().is_none());
    assert!(
        exported.contains(&format!(
            "search-bids-{checksum:08x}-4w.progress keeps what `trainer search-bids` decided"
        )),
        "{exported}"
    );
    let again = ok(&trainer(&args));
    assert!(again.contains("already decided"), "{again}");
    assert!(again.contains("decided 0 bids"), "{again}");
    let second = searched().expect("the bids are back");
    assert_eq!((second.keys, second.changed), (first.keys, first.changed));

    // A run whose progress file an older binary deleted: the decisions are
    // taken from the policy itself, none decided again.
    std::fs::remove_file(&progress).unwrap();
    let taken = ok(&trainer(&args));
    assert!(
        taken.contains("already holds for this blueprint"),
        "{taken}"
    );
    assert!(taken.contains("decided 0 bids"), "{taken}");
    assert!(progress.exists());
    let third = searched().expect("the bids are kept");
    assert_eq!((third.keys, third.changed), (first.keys, first.changed));
}

/// `--best-response-to FILE` trains the run against FILE's policy: the run
/// says so, keeps it for later sessions until `off`, and exports; a file
/// that is no policy, or a policy of other rules, is refused by name.
#[test]
fn a_best_response_is_trained_against_a_policy_the_run_keeps_and_refuses_what_it_cannot_read() {
    let temp = TempDir::new("best-response");
    let policy_run = temp.run("policy-run");
    train(&policy_run, "memory", &["--iterations", "300"]);
    let policy = temp.run("policy.bin");
    ok(&trainer(&[
        "export",
        "--run-dir",
        &policy_run,
        "--out",
        &policy,
    ]));

    let run = temp.run("best-response");
    train(
        &run,
        "memory",
        &["--iterations", "300", "--best-response-to", &policy],
    );
    let settings = || std::fs::read_to_string(Path::new(&run).join("settings.toml")).unwrap();
    let log = || std::fs::read_to_string(Path::new(&run).join("train.log")).unwrap();
    assert!(
        settings().contains("[session.best_response_to]"),
        "{}",
        settings()
    );
    assert!(settings().contains("policy.bin"), "{}", settings());
    let answering = "a best response: the opponents play policy-argmax:";
    assert_eq!(log().matches(answering).count(), 1, "{}", log());
    let status = ok(&trainer(&["status", "--run-dir", &run]));
    assert!(
        status.contains("opponents  a best response to") && status.contains("policy.bin"),
        "{status}"
    );
    // A session of 100 iterations, with `--best-response-to` if given.
    let resume = |best_response_to: Option<&str>| {
        let mut args = vec!["resume", "--run-dir", &run, "--iterations", "100"];
        if let Some(given) = best_response_to {
            args.extend(["--best-response-to", given]);
        }
        trainer(&args)
    };
    // Kept by a resumed session, then turned off.
    ok(&resume(None));
    assert_eq!(log().matches(answering).count(), 2, "{}", log());
    ok(&resume(Some("off")));
    assert_eq!(log().matches(answering).count(), 2, "{}", log());
    assert!(!settings().contains("best_response_to"), "{}", settings());
    let exported = temp.run("best-response.bin");
    ok(&trainer(&["export", "--run-dir", &run, "--out", &exported]));

    // Not a policy file: refused, naming the file.
    let missing = temp.run("missing.bin");
    let stderr = refused(&resume(Some(&missing)));
    assert!(
        stderr.contains("opening the policy to train a best response to")
            && stderr.contains("missing.bin"),
        "{stderr}"
    );
    // A policy of other rules answers another game.
    let profile = temp.run("canadian.toml");
    std::fs::write(&profile, "[rules]\ncanadian_loners = true\n").expect("a profile");
    let canadian_run = temp.run("canadian-run");
    train(
        &canadian_run,
        "memory",
        &["--iterations", "100", "--config", &profile],
    );
    let canadian = temp.run("canadian.bin");
    ok(&trainer(&[
        "export",
        "--run-dir",
        &canadian_run,
        "--out",
        &canadian,
    ]));
    let stderr = refused(&resume(Some(&canadian)));
    assert!(
        stderr.contains("was trained under other rules than this run")
            && stderr.contains("canadian_loners=true"),
        "{stderr}"
    );
}

/// A's margin over B and its 95% half-width, from `eval`'s headline line.
fn margin(eval: &str) -> (f64, f64) {
    let line = eval
        .lines()
        .find_map(|line| line.strip_prefix("A's points per hand minus B's: "))
        .unwrap_or_else(|| panic!("no margin in {eval}"));
    let mut numbers = line
        .split_whitespace()
        .filter_map(|word| word.parse::<f64>().ok());
    (numbers.next().unwrap(), numbers.next().unwrap())
}

/// The best response learns to beat the policy it answers: a bidding
/// policy that is mostly the heuristic's bids (a short run: its unseen
/// keys go to the heuristic), answered under the heuristic's card play,
/// loses to its best response by more than the interval, and the same
/// run trained without the model (an equilibrium, warm-started alike)
/// takes less from it.
#[test]
fn a_learned_best_response_beats_the_policy_it_answers_and_an_equilibrium_trained_alike() {
    let temp = TempDir::new("best-response-beats");
    let leaves = ["--leaves", "heuristic-play"];
    let policy_run = temp.run("policy-run");
    train(
        &policy_run,
        "memory",
        &[&leaves[..], &["--iterations", "2000"]].concat(),
    );
    let policy = temp.run("policy.bin");
    ok(&trainer(&[
        "export",
        "--run-dir",
        &policy_run,
        "--out",
        &policy,
    ]));
    let answered = format!("policy-argmax:{policy}+heuristic");
    let against_policy = |extra: &[&str], name: &str| {
        let run = temp.run(name);
        let session = ["--iterations", "1000000", "--warm-start", "1"];
        train(&run, "memory", &[&leaves[..], &session[..], extra].concat());
        let out = temp.run(&format!("{name}.bin"));
        ok(&trainer(&["export", "--run-dir", &run, "--out", &out]));
        let spec = format!("policy-argmax:{out}+heuristic");
        margin(&ok(&trainer(&[
            "eval", "--a", &spec, "--b", &answered, "--hands", "20000", "--seed", "11",
        ])))
    };
    let (best_response, interval) =
        against_policy(&["--best-response-to", &policy], "best-response");
    let (equilibrium, _) = against_policy(&[], "equilibrium");
    assert!(
        best_response - interval > 0.0,
        "{best_response} ± {interval}"
    );
    assert!(
        best_response > equilibrium + 0.02,
        "{best_response} against the equilibrium's {equilibrium}"
    );
}
