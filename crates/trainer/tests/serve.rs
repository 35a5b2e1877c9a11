//! `trainer serve` at the HTTP level: every bad input gets a clear message
//! and a proper status, and one bad request leaves other games alone.

mod support;

use std::net::SocketAddr;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use euchre_bots::bots::policy::Unseen;
use euchre_game::engine::rules::Rules;
use http_body_util::BodyExt;
use support::{TempDir, bidding_policy};
use tower::ServiceExt;
use trainer::serve::{ServeError, ServeOptions, app, bind};

const SEED: u64 = 1;

fn options(bot: &str) -> ServeOptions {
    ServeOptions {
        bot: bot.to_owned(),
        run_dirs: Vec::new(),
        rules: Rules::default(),
        unseen: Unseen::Heuristic,
        address: SocketAddr::from(([127, 0, 0, 1], 0)),
        // Fixed deals: the first game opens with the person bidding.
        seed: Some(SEED),
    }
}

async fn send(router: &Router, request: Request<Body>) -> (StatusCode, Option<String>, String) {
    let response = router.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let location = response
        .headers()
        .get(header::LOCATION)
        .map(|value| value.to_str().unwrap().to_owned());
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (
        status,
        location,
        String::from_utf8_lossy(&body).into_owned(),
    )
}

fn get(uri: &str) -> Request<Body> {
    Request::get(uri).body(Body::empty()).unwrap()
}

fn form(uri: &str, body: &str) -> Request<Body> {
    Request::post(uri)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(body.to_owned()))
        .unwrap()
}

fn json(uri: &str, body: &str) -> Request<Body> {
    Request::post(uri)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.to_owned()))
        .unwrap()
}

/// Starts a game and returns its path.
async fn new_game(router: &Router) -> String {
    let (status, location, body) = send(
        router,
        form("/games", "partner=heuristic&opponents=heuristic&target=10"),
    )
    .await;
    assert_eq!(status, StatusCode::SEE_OTHER, "{body}");
    location.expect("a redirect to the game")
}

/// The first move the page offers with the given class, as form text.
fn offered(page: &str, class: &str) -> Option<String> {
    let marker = format!("class=\"{class}\"");
    let at = page.find(&marker)?;
    let action_at = page[at..].find("data-action=\"")? + at + "data-action=\"".len();
    let end = page[action_at..].find('"')? + action_at;
    Some(page[action_at..end].to_owned())
}

fn form_value(action: &str) -> String {
    format!("action={}", action.replace(' ', "+"))
}

#[tokio::test]
async fn pages_and_games_answer_and_bad_moves_are_refused() {
    let router = app(&options("heuristic")).unwrap();
    let (status, _, home) = send(&router, get("/")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(home.contains("new-game"), "{home}");
    let (status, _, css) = send(&router, get("/style.css")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(css.contains(".card"));

    let game = new_game(&router).await;
    let other = new_game(&router).await;
    assert_ne!(game, other, "two tabs get two games");
    let (status, _, page) = send(&router, get(&game)).await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("id=\"hand\""), "{page}");
    let (_, _, other_before) = send(&router, get(&other)).await;

    // A move that is not notation.
    let (status, _, page) = send(&router, form(&format!("{game}/move"), "action=fly")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(page.contains("not a move"), "{page}");
    // A form without the field.
    let (status, _, _) = send(&router, form(&format!("{game}/move"), "nothing=1")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // A card the page marks illegal (every card while bidding).
    let illegal = offered(&page, "card illegal").expect("an illegal card on the page");
    let (status, _, refused) = send(
        &router,
        form(&format!("{game}/move"), &form_value(&illegal)),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert!(refused.contains("is not allowed"), "{refused}");
    // A card the person does not hold.
    let (status, _, refused) = send(&router, form(&format!("{game}/move"), "action=play+9c")).await;
    assert!(
        status == StatusCode::UNPROCESSABLE_ENTITY,
        "{status}: {refused}"
    );
    // The next hand before this one is over.
    let (status, _, refused) = send(&router, form(&format!("{game}/next"), "")).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert!(refused.contains("still being played"), "{refused}");
    // Unknown games.
    let (status, _, page) = send(&router, get("/game/0123456789abcdef")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(page.contains("no game"), "{page}");
    let (status, _, _) = send(&router, form("/game/nope/move", "action=pass")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _, _) = send(&router, get("/no/such/page")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // None of that touched the other game.
    let (_, _, other_after) = send(&router, get(&other)).await;
    assert_eq!(other_before, other_after);

    // A legal bid moves the game on.
    let bid = offered(&page_of(&router, &game).await, "bid").expect("a bid to make");
    let (status, location, _) =
        send(&router, form(&format!("{game}/move"), &form_value(&bid))).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(location.as_deref(), Some(game.as_str()));
}

async fn page_of(router: &Router, game: &str) -> String {
    send(router, get(game)).await.2
}

#[tokio::test]
async fn a_whole_game_is_played_through_the_forms() {
    let router = app(&options("heuristic")).unwrap();
    let game = new_game(&router).await;
    for _ in 0..2000 {
        let page = page_of(&router, &game).await;
        if page.contains("id=\"game-over\"") {
            assert!(page.contains("win the game"), "{page}");
            return;
        }
        if page.contains("id=\"next-hand\"") {
            assert!(page.contains("Show all four hands"), "{page}");
            let (status, _, _) = send(&router, form(&format!("{game}/next"), "")).await;
            assert_eq!(status, StatusCode::SEE_OTHER);
            continue;
        }
        let action = offered(&page, "bid")
            .or_else(|| offered(&page, "card legal"))
            .unwrap_or_else(|| panic!("no move offered:\n{page}"));
        let (status, _, body) =
            send(&router, form(&format!("{game}/move"), &form_value(&action))).await;
        assert_eq!(status, StatusCode::SEE_OTHER, "{action}: {body}");
    }
    panic!("the game did not end within 2000 moves");
}

#[tokio::test]
async fn new_games_with_bad_bots_or_targets_are_explained() {
    let router = app(&options("heuristic")).unwrap();
    let (status, _, page) = send(
        &router,
        form(
            "/games",
            "partner=policy:/nonexistent/p.bin&opponents=heuristic",
        ),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(page.contains("/nonexistent/p.bin"), "{page}");
    let (status, _, page) = send(
        &router,
        form("/games", "partner=heuristic&opponents=wizard"),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(page.contains("unknown bot"), "{page}");
    let (status, _, page) = send(
        &router,
        form("/games", "partner=heuristic&opponents=heuristic&target=0"),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(page.contains("points to win"), "{page}");
    let (status, _, _) = send(&router, form("/games", "partner=heuristic")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn the_api_answers_views_and_refuses_bad_ones_with_their_status() {
    let router = app(&options("heuristic")).unwrap();
    let view = r#"{"dealer":"N","seat":"E","hand":["9c","Tc","Qc","Kc","Ac"],"upcard":"Jh"}"#;
    let (status, _, body) = send(&router, json("/api/act", view)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let answer: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["seat"], "E");

    let cases = [
        ("not json", StatusCode::BAD_REQUEST, "malformed"),
        (
            r#"{"dealer":"N"}"#,
            StatusCode::BAD_REQUEST,
            "missing field",
        ),
        (
            r#"{"dealer":"N","seat":"E","hand":["9c","Tc","Qc","Kc","Xx"],"upcard":"Jh"}"#,
            StatusCode::BAD_REQUEST,
            "'Xx' is not a card",
        ),
        (
            r#"{"dealer":"N","seat":"S","hand":["9c","Tc","Qc","Kc","Ac"],"upcard":"Jh"}"#,
            StatusCode::CONFLICT,
            "E's turn",
        ),
        (
            r#"{"dealer":"N","seat":"E","hand":["Jh","Tc","Qc","Kc","Ac"],"upcard":"Jh"}"#,
            StatusCode::UNPROCESSABLE_ENTITY,
            "cannot hold Jh",
        ),
        (
            r#"{"dealer":"N","seat":"E","hand":["9c","Tc","Qc","Kc","Ac"],"upcard":"Jh","actions":["play Ah"]}"#,
            StatusCode::UNPROCESSABLE_ENTITY,
            "not legal",
        ),
    ];
    for (body, expected, words) in cases {
        let (status, _, answer) = send(&router, json("/api/act", body)).await;
        assert_eq!(status, expected, "{body} -> {answer}");
        let answer: serde_json::Value = serde_json::from_str(&answer).unwrap();
        let message = answer["error"].as_str().unwrap();
        assert!(message.contains(words), "{body} -> {message}");
    }
}

#[tokio::test]
async fn a_missing_or_foreign_policy_file_is_refused_at_start() {
    let missing = app(&options("policy:/nonexistent/policy.bin")).unwrap_err();
    assert!(matches!(missing, ServeError::Bot(_)));
    assert!(
        missing.to_string().contains("/nonexistent/policy.bin"),
        "{missing}"
    );

    let temp = TempDir::new("serve-foreign");
    let policy = bidding_policy(&temp.0);
    let mut foreign = options(&format!("policy:{}", policy.display()));
    foreign.rules.stick_the_dealer = !foreign.rules.stick_the_dealer;
    let error = app(&foreign).unwrap_err();
    assert!(error.to_string().contains("was trained under"), "{error}");

    let garbage = temp.path("garbage.bin");
    std::fs::write(&garbage, b"not a policy").unwrap();
    let error = app(&options(&format!("policy:{}", garbage.display()))).unwrap_err();
    assert!(error.to_string().contains("garbage.bin"), "{error}");
}

#[tokio::test]
async fn a_port_in_use_is_named() {
    let holder = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = holder.local_addr().unwrap();
    let error = bind(address).await.unwrap_err();
    assert!(matches!(error, ServeError::PortInUse { .. }), "{error}");
    assert!(
        error
            .to_string()
            .contains(&format!("port {}", address.port()))
            && error.to_string().contains("--port"),
        "{error}"
    );
}

#[tokio::test]
async fn the_runs_page_shows_status_and_curve_of_each_run() {
    let temp = TempDir::new("serve-runs");
    bidding_policy(&temp.0);
    let run = temp.path("run");
    std::fs::write(
        run.join("curve.svg"),
        "<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>",
    )
    .unwrap();
    let mut with_runs = options("heuristic");
    with_runs.run_dirs = vec![run.clone(), temp.path("absent")];
    let router = app(&with_runs).unwrap();
    let (status, _, page) = send(&router, get("/runs")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("checkpoint iteration 20,000"), "{page}");
    assert!(page.contains("/runs/0/curve.svg"), "{page}");
    assert!(page.contains("holds no run"), "{page}");
    let (status, _, svg) = send(&router, get("/runs/0/curve.svg")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(svg.starts_with("<svg"));
    let (status, _, _) = send(&router, get("/runs/1/curve.svg")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _, _) = send(&router, get("/runs/7/curve.svg")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}
