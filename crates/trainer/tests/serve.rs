//! `trainer serve` at the HTTP level: every bad input gets a clear message
//! and a proper status, and one bad request leaves other games alone.

mod support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use euchre_bots::bots::policy::Unseen;
use euchre_game::engine::rules::Rules;
use http_body_util::BodyExt;
use support::{TempDir, bidding_policy};
use tower::ServiceExt;
use trainer::serve::{ServeError, ServeOptions, bind};

const SEED: u64 = 1;

fn options(bot: &str) -> ServeOptions {
    ServeOptions {
        bots: vec![bot.to_owned()],
        run_dirs: Vec::new(),
        rules: Rules::default(),
        unseen: Unseen::Heuristic,
        address: SocketAddr::from(([127, 0, 0, 1], 0)),
        // Fixed deals: the first game opens with the person bidding.
        seed: Some(SEED),
        allowed_hosts: Vec::new(),
        games_dir: None,
        hint_bot: "pimc:8".to_owned(),
    }
}

fn app(options: &ServeOptions) -> Result<Router, ServeError> {
    trainer::serve::app(options, &Arc::new(AtomicBool::new(false)))
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
    // The class, alone or before another (a hint's best move is "bid best").
    let marker = format!("class=\"{class}");
    let at = page
        .match_indices(&marker)
        .map(|(at, _)| at)
        .find(|&at| matches!(page.as_bytes().get(at + marker.len()), Some(b'"' | b' ')))?;
    let action_at = page[at..].find("data-action=\"")? + at + "data-action=\"".len();
    let end = page[action_at..].find('"')? + action_at;
    Some(page[action_at..end].to_owned())
}

/// The position the page's forms answer.
fn position(page: &str) -> String {
    let marker = "name=\"at\" value=\"";
    let at = page.find(marker).expect("a form with its position") + marker.len();
    let end = page[at..].find('"').unwrap() + at;
    page[at..end].to_owned()
}

/// A move form as the page would post it.
fn form_value(page: &str, action: &str) -> String {
    format!("action={}&at={}", action.replace(' ', "+"), position(page))
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
    let at = position(&page);
    let (status, _, page) = send(
        &router,
        form(&format!("{game}/move"), &format!("action=fly&at={at}")),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(page.contains("not a move"), "{page}");
    // A form without the field.
    let (status, _, _) = send(&router, form(&format!("{game}/move"), "nothing=1")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // A card the page marks illegal (every card while bidding).
    let illegal = offered(&page, "card illegal").expect("an illegal card on the page");
    let (status, _, refused) = send(
        &router,
        form(&format!("{game}/move"), &form_value(&page, &illegal)),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert!(refused.contains("is not allowed"), "{refused}");
    // In a player's words, as the table draws cards: `play 10♠`, never the
    // notation's `play Ts`.
    let notation: euchre_game::engine::action::Action = illegal.parse().unwrap();
    assert!(
        refused.contains(&format!("{} is not allowed", notation.pretty())),
        "{illegal}: {refused}"
    );
    // A card the person does not hold.
    let (status, _, refused) = send(
        &router,
        form(&format!("{game}/move"), &format!("action=play+9c&at={at}")),
    )
    .await;
    assert!(
        status == StatusCode::UNPROCESSABLE_ENTITY,
        "{status}: {refused}"
    );
    // The next hand before this one is over.
    let (status, _, refused) =
        send(&router, form(&format!("{game}/next"), &format!("at={at}"))).await;
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
    let page = page_of(&router, &game).await;
    let bid = offered(&page, "bid").expect("a bid to make");
    let (status, location, _) = send(
        &router,
        form(&format!("{game}/move"), &form_value(&page, &bid)),
    )
    .await;
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
            let next = format!("at={}", position(&page));
            let (status, _, _) = send(&router, form(&format!("{game}/next"), &next)).await;
            assert_eq!(status, StatusCode::SEE_OTHER);
            continue;
        }
        let action = offered(&page, "bid")
            .or_else(|| offered(&page, "card legal"))
            .unwrap_or_else(|| panic!("no move offered:\n{page}"));
        let (status, _, body) = send(
            &router,
            form(&format!("{game}/move"), &form_value(&page, &action)),
        )
        .await;
        assert_eq!(status, StatusCode::SEE_OTHER, "{action}: {body}");
    }
    panic!("the game did not end within 2000 moves");
}

/// Taking a move back needs a practice game and a move of this hand;
/// analysing needs a finished hand; each refusal says so, with 409.
#[tokio::test]
async fn undo_and_analysis_are_refused_with_the_reason_where_they_cannot_be() {
    let router = app(&options("heuristic")).unwrap();
    let game = new_game(&router).await;
    let page = page_of(&router, &game).await;
    assert!(!page.contains("id=\"undo\""), "no undo outside practice");
    let at = format!("at={}", position(&page));
    let (status, _, body) = send(&router, form(&format!("{game}/undo"), &at)).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert!(body.contains("not a practice game"), "{body}");
    let (status, _, body) = send(&router, form(&format!("{game}/analyse"), "")).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert!(
        body.contains("no hand of this game is finished yet"),
        "{body}"
    );

    let (_, practice, _) = send(
        &router,
        form(
            "/games",
            "partner=heuristic&opponents=heuristic&practice=on",
        ),
    )
    .await;
    let practice = practice.unwrap();
    let page = page_of(&router, &practice).await;
    assert!(
        page.contains("A practice game: 0 moves taken back"),
        "{page}"
    );
    let at = format!("at={}", position(&page));
    let (status, _, body) = send(&router, form(&format!("{practice}/undo"), &at)).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert!(body.contains("no move of yours to take back"), "{body}");
    let action = offered(&page, "bid").unwrap();
    send(
        &router,
        form(&format!("{practice}/move"), &form_value(&page, &action)),
    )
    .await;
    let (status, _, body) = send(&router, form(&format!("{practice}/undo"), &at)).await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "a page from before the move is stale"
    );
    assert!(body.contains("has moved on"), "{body}");
    let now = page_of(&router, &practice).await;
    let at = format!("at={}", position(&now));
    let (status, _, _) = send(&router, form(&format!("{practice}/undo"), &at)).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let after = page_of(&router, &practice).await;
    let bids = |page: &str| {
        let start = page.find("<ol class=\"bids\">").unwrap();
        page[start..start + page[start..].find("</ol>").unwrap()].to_owned()
    };
    assert_eq!(bids(&after), bids(&page), "the bid was taken back");
    assert!(after.contains("1 move taken back"), "{after}");
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
    assert!(page.contains("no bot"), "{page}");
    let (status, _, page) = send(
        &router,
        form("/games", "partner=heuristic&opponents=wizard"),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        page.contains("no bot &#39;wizard&#39;") || page.contains("no bot 'wizard'"),
        "{page}"
    );
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

    let garbage = temp.join("garbage.bin");
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
    let run = temp.join("run");
    std::fs::write(
        run.join("curve.svg"),
        "<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>",
    )
    .unwrap();
    let mut with_runs = options("heuristic");
    with_runs.run_dirs = vec![run.clone(), temp.join("absent")];
    let router = app(&with_runs).unwrap();
    let (status, _, page) = send(&router, get("/runs")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("checkpoint iteration 20,000"), "{page}");
    assert!(page.contains("/runs/0/curve.svg"), "{page}");
    assert!(page.contains("holds no run"), "{page}");
    assert!(
        !page.contains("http-equiv=\"refresh\""),
        "the page moves only when asked to"
    );
    let (status, _, reloading) = send(&router, get("/runs?every=30")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        reloading.contains("http-equiv=\"refresh\" content=\"30\"")
            && reloading.contains("Stop reloading"),
        "{reloading}"
    );
    let (status, _, svg) = send(&router, get("/runs/0/curve.svg")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(svg.starts_with("<svg"));
    let (status, _, _) = send(&router, get("/runs/1/curve.svg")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _, _) = send(&router, get("/runs/7/curve.svg")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

/// A request as another site's page makes the user's browser send it.
fn cross_site(request: Request<Body>, origin: &str) -> Request<Body> {
    let (mut parts, body) = request.into_parts();
    parts
        .headers
        .insert(header::HOST, "127.0.0.1:8080".parse().unwrap());
    parts
        .headers
        .insert(header::ORIGIN, origin.parse().unwrap());
    parts
        .headers
        .insert("sec-fetch-site", "cross-site".parse().unwrap());
    Request::from_parts(parts, body)
}

/// What the server answers a client that names a file: the same refusal
/// whether the file exists, is a device, or is missing, and no read.
#[tokio::test]
async fn a_client_never_names_a_file_and_work_is_bounded() {
    let router = app(&options("heuristic")).unwrap();
    let temp = TempDir::new("serve-no-files");
    let policy = bidding_policy(&temp.0);
    let mut messages = Vec::new();
    for named in [
        "policy:/dev/zero".to_owned(),
        "policy:/nonexistent/p.bin".to_owned(),
        format!("policy:{}", policy.display()),
        format!("policy:{}", temp.0.display()),
        "pimc:100000000".to_owned(),
        "pimc:201".to_owned(),
    ] {
        let started = std::time::Instant::now();
        let (status, _, page) = send(
            &router,
            form("/games", &format!("partner={named}&opponents=heuristic")),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{named}: {page}");
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
        for leak in ["No such file", "Is a directory", "not a policy file"] {
            assert!(!page.contains(leak), "{named} told the client: {leak}");
        }
        let message = page
            .split("role=\"alert\">")
            .nth(1)
            .and_then(|rest| rest.split('<').next())
            .unwrap()
            .replace(&pages_escape(&named), "NAME");
        messages.push(message);
    }
    assert!(
        messages.windows(2).all(|pair| pair[0] == pair[1]),
        "every refusal reads the same: {messages:?}"
    );
    // The built-ins with bounded cost are still there.
    let (status, _, _) = send(
        &router,
        form("/games", "partner=pimc:200&opponents=random&target=1"),
    )
    .await;
    assert_eq!(status, StatusCode::SEE_OTHER);
}

fn pages_escape(text: &str) -> String {
    trainer::serve::pages::escape(text)
}

/// Offered bots are named by a label that shows no directory, in pages and
/// in API answers alike, and clients pick them by label or number.
#[tokio::test]
async fn offered_bots_are_chosen_by_label_and_show_no_path() {
    let temp = TempDir::new("serve-labels");
    let policy = bidding_policy(&temp.0);
    let mut offering = options(&format!("policy:{}+heuristic", policy.display()));
    offering.bots.push("pimc:5".to_owned());
    let router = app(&offering).unwrap();
    let directory = temp.0.display().to_string();
    let (_, _, home) = send(&router, get("/")).await;
    assert!(home.contains("policy:policy.bin+heuristic"), "{home}");
    assert!(!home.contains(&directory), "{home}");
    let view = r#"{"dealer":"N","seat":"E","hand":["9c","Tc","Qc","Kc","Ac"],"upcard":"Jh"}"#;
    let (status, _, body) = send(&router, json("/api/act", view)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let answer: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["bot"], "policy:policy.bin+heuristic");
    assert!(!body.contains(&directory), "{body}");
    for choice in ["policy:policy.bin%2Bheuristic", "1", "2", "pimc:5"] {
        let (status, _, page) = send(
            &router,
            form("/games", &format!("partner={choice}&opponents=heuristic")),
        )
        .await;
        assert_eq!(status, StatusCode::SEE_OTHER, "{choice}: {page}");
    }
}

#[tokio::test]
async fn cross_site_posts_are_refused() {
    let router = app(&options("heuristic")).unwrap();
    let new_game_form = || form("/games", "partner=heuristic&opponents=heuristic");
    let (status, _, page) =
        send(&router, cross_site(new_game_form(), "https://evil.example")).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{page}");
    assert!(page.contains("only from its own pages"), "{page}");
    let view = r#"{"dealer":"N","seat":"E","hand":["9c","Tc","Qc","Kc","Ac"],"upcard":"Jh"}"#;
    let (status, _, body) = send(
        &router,
        cross_site(json("/api/act", view), "https://evil.example"),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let answer: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert!(answer["error"].as_str().unwrap().contains("own pages"));
    // The server's own page, as a browser sends it.
    let mut own = new_game_form();
    own.headers_mut()
        .insert(header::HOST, "127.0.0.1:8080".parse().unwrap());
    own.headers_mut()
        .insert(header::ORIGIN, "http://127.0.0.1:8080".parse().unwrap());
    own.headers_mut()
        .insert("sec-fetch-site", "same-origin".parse().unwrap());
    let (status, _, _) = send(&router, own).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
}

/// A move form posted twice answers a position the game has left: the
/// second is refused with 409, and the game is where the first left it.
#[tokio::test]
async fn a_replayed_move_is_refused() {
    let router = app(&options("heuristic")).unwrap();
    let game = new_game(&router).await;
    let page = page_of(&router, &game).await;
    let pass = form_value(&page, "pass");
    let (status, _, _) = send(&router, form(&format!("{game}/move"), &pass)).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let after_first = page_of(&router, &game).await;
    let (status, _, refused) = send(&router, form(&format!("{game}/move"), &pass)).await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert!(refused.contains("moved on"), "{refused}");
    assert_eq!(page_of(&router, &game).await, after_first);
    // A move with no position at all is not one of this server's forms.
    let (status, _, refused) = send(&router, form(&format!("{game}/move"), "action=pass")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
    assert!(refused.contains("which position"), "{refused}");
}

#[tokio::test]
async fn bodies_and_methods_are_bounded_with_a_body_that_says_so() {
    let router = app(&options("heuristic")).unwrap();
    let huge = "x".repeat(3 * 1024 * 1024);
    let (status, _, page) = send(&router, form("/games", &format!("partner={huge}"))).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(page.contains("larger than 64 KiB"), "{}", &page[..200]);
    let (status, _, body) = send(&router, json("/api/act", &huge)).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    let answer: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert!(answer["error"].as_str().unwrap().contains("64 KiB"));
    // A declared length over the limit is refused before the body is read.
    let declared = Request::post("/api/act")
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::CONTENT_LENGTH, huge.len())
        .body(Body::from(huge.clone()))
        .unwrap();
    let (status, _, body) = send(&router, declared).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{body}");

    let (status, _, body) = send(&router, get("/api/act")).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    let answer: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert!(answer["error"].as_str().unwrap().contains("takes POST"));
    let (status, _, page) = send(&router, get("/games")).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    assert!(page.contains("takes POST"), "{page}");
    let (status, _, page) = send(&router, form("/runs", "")).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    assert!(page.contains("takes GET"), "{page}");
}

/// Starts the real server on a free port and returns it with its address.
fn spawn_server(extra: &[&str]) -> (std::process::Child, SocketAddr) {
    use std::io::BufRead;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_trainer"))
        .args(["serve", "--port", "0"])
        .args(extra)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let address = line
        .strip_prefix("serving on http://")
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .parse()
        .unwrap();
    (child, address)
}

/// Whether the server has closed `stream` (a read sees the end).
fn closed_by_server(stream: &mut std::net::TcpStream) -> bool {
    use std::io::Read;
    stream
        .set_read_timeout(Some(std::time::Duration::from_millis(200)))
        .unwrap();
    let mut buffer = [0u8; 4096];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) => return true,
            Ok(_) => continue, // a response it sent before closing
            Err(error)
                if matches!(
                    error.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return false;
            }
            Err(_) => return true,
        }
    }
}

fn get_status(address: SocketAddr) -> Option<String> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(address).ok()?;
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .ok()?;
    stream
        .write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    response.lines().next().map(str::to_owned)
}

/// The first bot on the command line is the default of new games,
/// whichever flag offered it: `--bot heuristic --policy FILE` defaults to
/// the heuristic, `--policy FILE --bot heuristic` to the policy.
#[test]
fn the_first_bot_offered_on_the_command_line_is_the_default_whichever_flag_gave_it() {
    use std::io::{Read, Write};
    let temp = TempDir::new("serve-offer-order");
    let policy = bidding_policy(&temp.0);
    let policy = policy.to_str().unwrap();
    let partner_default = |args: &[&str]| {
        let (mut server, address) = spawn_server(args);
        let mut stream = std::net::TcpStream::connect(address).unwrap();
        stream
            .write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            .unwrap();
        let mut page = String::new();
        stream.read_to_string(&mut page).unwrap();
        server.kill().ok();
        server.wait().ok();
        // The option selected in the partner's list.
        let list = page
            .find("name=\"partner\"")
            .unwrap_or_else(|| panic!("{page}"));
        let list = &page[list..page[list..].find("</select>").unwrap() + list];
        let selected = list
            .find("\" selected>")
            .unwrap_or_else(|| panic!("{list}"));
        let start = list[..selected].rfind("value=\"").unwrap() + "value=\"".len();
        list[start..selected].to_owned()
    };
    assert_eq!(
        partner_default(&["--bot", "heuristic", "--policy", policy]),
        "heuristic"
    );
    assert_eq!(
        partner_default(&["--policy", policy, "--bot", "heuristic"]),
        "policy:policy.bin"
    );
}

/// Idle connections, half-sent headers and keep-alive connections left
/// open are all closed after the header timeout, so they cannot hold the
/// server's descriptors. Ctrl-C then stops the server promptly even with a
/// connection open.
#[test]
fn slow_and_idle_clients_are_cut_off_and_ctrl_c_stops_promptly() {
    use std::io::Write;
    use trainer::serve::{HEADER_TIMEOUT, MAX_CONNECTIONS, SHUTDOWN_GRACE};
    let (mut server, address) = spawn_server(&[]);
    // The server's clock for each connection starts when it accepts it,
    // after this instant; the crowd below may take seconds to connect on a
    // loaded machine, so the lower bound is measured from here.
    let first_connected = std::time::Instant::now();
    let mut idle = std::net::TcpStream::connect(address).unwrap();
    let mut half = std::net::TcpStream::connect(address).unwrap();
    half.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n").unwrap();
    let mut kept = std::net::TcpStream::connect(address).unwrap();
    kept.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    // Nearly as many idle connections as the server serves at once (past
    // the cap, the oldest idle ones would give way to new ones at once; see
    // `a_full_table_of_slow_clients_gives_way_to_real_ones`).
    let crowd: Vec<_> = (0..MAX_CONNECTIONS - 10)
        .filter_map(|_| std::net::TcpStream::connect(address).ok())
        .collect();
    let started = std::time::Instant::now();
    let deadline = HEADER_TIMEOUT + std::time::Duration::from_secs(5);
    let mut open = vec![&mut idle, &mut half, &mut kept];
    while !open.is_empty() && started.elapsed() < deadline {
        open.retain_mut(|stream| !closed_by_server(stream));
    }
    assert!(
        open.is_empty(),
        "{} connections still open after {:?}",
        open.len(),
        started.elapsed()
    );
    assert!(
        first_connected.elapsed() >= HEADER_TIMEOUT - std::time::Duration::from_secs(1),
        "closed before the timeout: {:?} after the first connection",
        first_connected.elapsed()
    );
    drop(crowd);
    let status = (0..20)
        .find_map(|_| {
            let status = get_status(address).filter(|line| line.contains("200"));
            if status.is_none() {
                std::thread::sleep(std::time::Duration::from_millis(250));
            }
            status
        })
        .expect("the server answers");
    assert!(status.contains("200"), "{status}");

    let _lingering = std::net::TcpStream::connect(address).unwrap();
    let stopped = std::time::Instant::now();
    std::process::Command::new("kill")
        .args(["-INT", &server.id().to_string()])
        .status()
        .unwrap();
    let limit = SHUTDOWN_GRACE + std::time::Duration::from_secs(3);
    while stopped.elapsed() < limit {
        if let Some(exit) = server.try_wait().unwrap() {
            assert!(exit.success(), "{exit:?}");
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    server.kill().ok();
    panic!("the server was still running {limit:?} after Ctrl-C");
}

#[test]
fn a_host_other_than_loopback_is_warned_about() {
    use std::io::BufRead;
    let (mut server, _) = spawn_server(&["--host", "0.0.0.0"]);
    server.kill().ok();
    let mut warning = String::new();
    std::io::BufReader::new(server.stderr.take().unwrap())
        .read_line(&mut warning)
        .unwrap();
    server.wait().ok();
    assert!(warning.contains("listening on 0.0.0.0"), "{warning}");
    assert!(
        warning.contains("anyone who can reach this machine"),
        "{warning}"
    );
    assert!(warning.contains("--host 127.0.0.1"), "{warning}");
    let (mut quiet, _) = spawn_server(&[]);
    quiet.kill().ok();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut quiet.stderr.take().unwrap(), &mut stderr).unwrap();
    quiet.wait().ok();
    assert!(!stderr.contains("warning"), "{stderr}");
}

/// A client that holds every slot with connections that never finish their
/// headers, and reconnects as fast as it is cut off, cannot keep real
/// clients out: a full table gives the slot of the connection idle longest
/// to the newcomer, and a connection with a request in flight is never
/// evicted.
#[test]
fn a_full_table_of_slow_clients_gives_way_to_real_ones() {
    use std::io::Write;
    use trainer::serve::MAX_CONNECTIONS;
    let (mut server, address) = spawn_server(&[]);
    let slow = |address| {
        let mut stream = std::net::TcpStream::connect(address).ok()?;
        stream.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n").ok()?;
        Some(stream)
    };
    let mut crowd: Vec<_> = (0..MAX_CONNECTIONS).filter_map(|_| slow(address)).collect();
    assert_eq!(crowd.len(), MAX_CONNECTIONS);
    let stop = Arc::new(AtomicBool::new(false));
    let attacker = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut held = Vec::new();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                if let Some(stream) = slow(address) {
                    held.push(stream);
                }
                if held.len() > MAX_CONNECTIONS {
                    held.remove(0);
                }
            }
        })
    };
    let answered = (0..12)
        .filter(|_| get_status(address).is_some_and(|line| line.contains("200")))
        .count();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    attacker.join().unwrap();
    assert_eq!(
        answered, 12,
        "real requests served while the table was full"
    );
    let evicted = crowd
        .iter_mut()
        .take(20)
        .map(closed_by_server)
        .filter(|&closed| closed)
        .count();
    assert!(evicted > 0, "the oldest idle connections gave way");
    server.kill().ok();
    server.wait().ok();
}

/// A decision of a million PIMC worlds in flight: the server stops within
/// 3 s of Ctrl-C, and a client that leaves stops the work under way within
/// a second (the bot checks between worlds, not only between decisions).
#[test]
fn a_long_decision_stops_when_its_client_leaves_and_at_ctrl_c() {
    use std::io::Write;
    let act = |address| {
        let body = r#"{"dealer":"N","seat":"E","hand":["9c","Tc","Qc","Kc","Ac"],"upcard":"Jh","actions":[]}"#;
        let mut stream = std::net::TcpStream::connect(address).unwrap();
        write!(
            stream,
            "POST /api/act HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        stream
    };
    let cpu_seconds = |pid: u32| -> f64 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .unwrap()
            .1
            .split_whitespace()
            .collect();
        let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
        ticks / 100.0
    };
    let (mut server, address) = spawn_server(&["--bot", "pimc:1000000"]);
    let client = act(address);
    // The decision is under way once the server has spent half a second
    // of CPU on it: on an idle machine after about 0.5 s, on a loaded one
    // (a test run sharing its cores) later, so wait for it, up to 20 s.
    let started = std::time::Instant::now();
    let mut busy = 0.0;
    while started.elapsed() < std::time::Duration::from_secs(20) {
        std::thread::sleep(std::time::Duration::from_millis(250));
        busy = cpu_seconds(server.id());
        if busy > 0.5 {
            break;
        }
    }
    assert!(busy > 0.5, "the decision was under way ({busy} s of CPU)");
    drop(client);
    std::thread::sleep(std::time::Duration::from_millis(1000));
    let after_leaving = cpu_seconds(server.id());
    std::thread::sleep(std::time::Duration::from_millis(2000));
    let idle = cpu_seconds(server.id()) - after_leaving;
    assert!(
        idle < 0.3,
        "{idle} s of CPU in the 2 s after the client left"
    );

    let mut waiting = act(address);
    std::thread::sleep(std::time::Duration::from_millis(1000));
    let stopped = std::time::Instant::now();
    std::process::Command::new("kill")
        .args(["-INT", &server.id().to_string()])
        .status()
        .unwrap();
    let limit = std::time::Duration::from_secs(3);
    while stopped.elapsed() < limit {
        if let Some(exit) = server.try_wait().unwrap() {
            assert!(exit.success(), "{exit:?}");
            // The decision Ctrl-C cut short is not answered as a decision.
            use std::io::Read;
            let mut answer = String::new();
            waiting
                .set_read_timeout(Some(std::time::Duration::from_secs(1)))
                .unwrap();
            let _ = waiting.read_to_string(&mut answer);
            assert!(
                !answer.starts_with("HTTP/1.1 200"),
                "a cut-short decision answered 200: {answer}"
            );
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    server.kill().ok();
    panic!("the server was still running {limit:?} after Ctrl-C with a decision in flight");
}

/// A request as a page on a rebinding domain sends it: the browser
/// resolved `evil.example` to this server, so to the browser the page and
/// the server share an origin, and only the Host says otherwise.
fn rebound(request: Request<Body>) -> Request<Body> {
    let (mut parts, body) = request.into_parts();
    let headers = &mut parts.headers;
    headers.insert(header::HOST, "evil.example:8080".parse().unwrap());
    headers.insert(header::ORIGIN, "http://evil.example:8080".parse().unwrap());
    headers.insert("sec-fetch-site", "same-origin".parse().unwrap());
    Request::from_parts(parts, body)
}

/// DNS rebinding: a request naming a host that is not the server's is
/// refused (421) on every path, pages and API alike, unless the operator
/// allowed that name; every answer forbids framing; and no page shows a
/// path on the server's disk, neither a policy's nor a run directory's.
#[tokio::test]
async fn foreign_hosts_framing_and_server_paths_are_refused() {
    let temp = TempDir::new("serve-hosts");
    let policy = bidding_policy(&temp.0);
    let run = temp.join("run");
    let mut offering = options(&format!("policy:{}+heuristic", policy.display()));
    offering.run_dirs = vec![run.clone(), temp.join("absent")];
    let router = app(&offering).unwrap();
    let view =
        r#"{"dealer":"N","seat":"E","hand":["9c","Tc","Qc","Kc","Ac"],"upcard":"Jh","actions":[]}"#;
    for request in [
        rebound(form("/games", "partner=heuristic&opponents=heuristic")),
        rebound(get("/runs")),
        rebound(get("/")),
        rebound(json("/api/act", view)),
    ] {
        let (status, _, body) = send(&router, request).await;
        assert_eq!(status, StatusCode::MISDIRECTED_REQUEST, "{body}");
        assert!(body.contains("evil.example"), "{body}");
        assert!(!body.contains(&temp.0.display().to_string()), "{body}");
    }
    let mut allowing = offering.clone();
    allowing.allowed_hosts = vec!["evil.example".to_owned()];
    let allowed = app(&allowing).unwrap();
    let (status, _, _) = send(&allowed, rebound(get("/runs"))).await;
    assert_eq!(status, StatusCode::OK, "a name the operator allowed");

    let response = router.clone().oneshot(get("/")).await.unwrap();
    assert_eq!(response.headers()[header::X_FRAME_OPTIONS], "DENY");
    assert_eq!(
        response.headers()[header::CONTENT_SECURITY_POLICY],
        "frame-ancestors 'none'; script-src 'self'",
        "no framing, and scripts only from this server's own files"
    );

    let (status, _, runs) = send(&router, get("/runs")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(runs.contains("checkpoint iteration"), "{runs}");
    let root = temp.0.display().to_string();
    assert!(
        !runs.contains(&root),
        "the runs page shows a server path: {runs}"
    );
    let game = new_game_with(&router, "partner=1&opponents=1").await;
    let (_, _, page) = send(&router, get(&game)).await;
    assert!(page.contains("policy.bin"), "{page}");
    assert!(
        !page.contains(&root),
        "the game page shows a server path: {page}"
    );
}

/// Starts a game from `form_body` and returns its path.
async fn new_game_with(router: &Router, form_body: &str) -> String {
    let (status, location, body) = send(router, form("/games", form_body)).await;
    assert_eq!(status, StatusCode::SEE_OTHER, "{body}");
    location.expect("a redirect to the game")
}

/// A multipart upload as the analysis form sends it.
fn upload(fields: &[(&str, Option<&str>, &str)]) -> Request<Body> {
    let boundary = "----euchre-test-boundary";
    let mut body = String::new();
    for (name, filename, value) in fields {
        body.push_str(&format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\""
        ));
        if let Some(filename) = filename {
            body.push_str(&format!(
                "; filename=\"{filename}\"\r\nContent-Type: application/octet-stream"
            ));
        }
        body.push_str(&format!("\r\n\r\n{value}\r\n"));
    }
    body.push_str(&format!("--{boundary}--\r\n"));
    Request::post("/analysis")
        .header(
            header::CONTENT_TYPE,
            format!("multipart/form-data; boundary={boundary}"),
        )
        .body(Body::from(body))
        .unwrap()
}

fn vendored_game(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../euchre-game/tests/egn")
        .join(name)
}

#[tokio::test]
async fn an_uploaded_game_is_analysed_and_stepped_through() {
    let router = app(&options("heuristic")).unwrap();
    let (status, _, page) = send(&router, get("/analysis")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("enctype=\"multipart/form-data\""), "{page}");

    let text = std::fs::read_to_string(vendored_game("VWEC_Finals_Annotated.egn")).unwrap();
    let (status, location, body) = send(
        &router,
        upload(&[("file", Some("final.egn"), &text), ("bot", None, "pimc:8")]),
    )
    .await;
    assert_eq!(status, StatusCode::SEE_OTHER, "{body}");
    let analysis = location.expect("a redirect to the analysis");
    let (status, _, page) = send(&router, get(&analysis)).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        page.contains("WWMM (N)") && page.contains("LeftyKnavey (W)"),
        "{page}"
    );
    assert!(page.contains("id=\"deals\""));
    // Deal 1, at the round-2 call the annotator commented on.
    let (_, _, page) = send(&router, get(&format!("{analysis}?deal=1&step=4"))).await;
    assert!(page.contains("Pretty ambitious next call"), "{page}");
    assert!(page.contains("id=\"made\""), "{page}");
    assert!(page.contains("class=\"options\""), "{page}");
    // Steps past the end show the last; nonsense shows the first.
    for query in ["?deal=99&step=999", "?deal=x&step=-1"] {
        let (status, _, _) = send(&router, get(&format!("{analysis}{query}"))).await;
        assert_eq!(status, StatusCode::OK, "{query}");
    }
    let (status, _, _) = send(&router, get("/analysis/0000")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn bad_games_and_bots_are_refused_on_the_analysis_form() {
    let router = app(&options("heuristic")).unwrap();
    let foreign = std::fs::read_to_string(vendored_game("invalid1.json")).unwrap();
    let cases = [
        (upload(&[("file", Some("x.egn"), "{ not json")]), "not JSON"),
        (
            upload(&[("file", Some("x.egn"), &foreign)]),
            "Euchre Layout Template",
        ),
        (upload(&[("bot", None, "pimc:50")]), "choose a game"),
        (upload(&[("pick", None, "../../etc/passwd")]), "no game"),
        (
            upload(&[
                (
                    "file",
                    Some("x.egn"),
                    &std::fs::read_to_string(vendored_game("Custom_Scenario.egn")).unwrap(),
                ),
                ("bot", None, "policy:/etc/passwd"),
            ]),
            "no bot",
        ),
    ];
    for (request, expected) in cases {
        let (status, _, page) = send(&router, request).await;
        assert!(status.is_client_error(), "{expected}: {status}");
        assert!(page.contains(&pages_escape(expected)), "{expected}: {page}");
    }
}

#[tokio::test]
async fn hints_show_on_request_for_the_persons_moves_and_the_game_saves_as_egn() {
    let router = app(&options("heuristic")).unwrap();
    let game = new_game(&router).await;
    let page = page_of(&router, &game).await;
    assert!(!page.contains("id=\"hints\""), "hints are off by default");
    let (status, _, _) = send(&router, form(&format!("{game}/hints"), "show=on")).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let page = page_of(&router, &game).await;
    assert!(page.contains("id=\"hints\""), "{page}");
    assert!(
        page.contains("points per hand"),
        "PIMC gives values: {page}"
    );
    // Play the first hand out; the hints stay on the person's moves only.
    loop {
        let page = page_of(&router, &game).await;
        if page.contains("id=\"next-hand\"") {
            assert!(
                !page.contains("id=\"hints\""),
                "no hints once the hand is over"
            );
            break;
        }
        let action = offered(&page, "bid")
            .or_else(|| offered(&page, "card legal"))
            .expect("a move");
        send(
            &router,
            form(&format!("{game}/move"), &form_value(&page, &action)),
        )
        .await;
    }
    let (status, _, _) = send(&router, form(&format!("{game}/hints"), "show=off")).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let (status, _, text) = send(&router, get(&format!("{game}/game.egn"))).await;
    assert_eq!(status, StatusCode::OK);
    let read = euchre_game::egn::read(&text).expect("the saved game reads");
    assert_eq!(read.deals.len(), 1);
    let deal = read.deals[0].as_ref().unwrap();
    euchre_game::egn::reconstruct(deal, read.rules).expect("and replays");
}

/// The games directory as a hostile operator or neighbour could leave it:
/// a FIFO, a link to `/dev/zero` and a file too large to be a game beside
/// a real record. Only regular files are listed; a name that is not
/// listed cannot be picked; a large file is refused by its size before it
/// is read; a mistyped `--games` is refused at start.
#[tokio::test]
async fn the_games_directory_lists_and_reads_only_regular_files_of_bounded_size() {
    let temp = TempDir::new("serve-games-dir");
    let dir = temp.join("games");
    std::fs::create_dir_all(&dir).unwrap();
    assert!(
        std::process::Command::new("mkfifo")
            .arg(dir.join("a-fifo.egn"))
            .status()
            .unwrap()
            .success()
    );
    std::os::unix::fs::symlink("/dev/zero", dir.join("b-zero.egn")).unwrap();
    std::fs::write(dir.join("c-large.egn"), vec![b' '; 2 << 20]).unwrap();
    std::fs::copy(
        vendored_game("VWEC_Finals_Annotated.egn"),
        dir.join("d-final.egn"),
    )
    .unwrap();
    let mut with_games = options("heuristic");
    with_games.games_dir = Some(dir.clone());
    let router = app(&with_games).unwrap();
    let (status, _, form_page) = send(&router, get("/analysis")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(form_page.contains("c-large.egn") && form_page.contains("d-final.egn"));
    assert!(
        !form_page.contains("a-fifo.egn") && !form_page.contains("b-zero.egn"),
        "{form_page}"
    );
    for (name, expected) in [
        ("a-fifo.egn", "no game"),
        ("b-zero.egn", "no game"),
        ("c-large.egn", "larger than an EGN game can be"),
    ] {
        let started = std::time::Instant::now();
        let (status, _, page) = send(
            &router,
            upload(&[("pick", None, name), ("bot", None, "heuristic")]),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{name}: {page}");
        assert!(page.contains(expected), "{name}: {page}");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "{name} took {:?}",
            started.elapsed()
        );
    }
    let (status, location, page) = send(
        &router,
        upload(&[("pick", None, "d-final.egn"), ("bot", None, "heuristic")]),
    )
    .await;
    assert_eq!(status, StatusCode::SEE_OTHER, "{page}");
    assert!(location.is_some());

    for missing in [temp.join("nonexistent"), dir.join("d-final.egn")] {
        let mut bad = options("heuristic");
        bad.games_dir = Some(missing.clone());
        let Err(error) = app(&bad) else {
            panic!("--games {} was not refused at start", missing.display());
        };
        assert!(
            error.to_string().contains("--games")
                && error.to_string().contains(&missing.display().to_string()),
            "{error}"
        );
    }
}

/// A server offering a policy names it by its label, never by its path:
/// not in a saved game's players, not as the judge of an analysis.
#[tokio::test]
async fn saved_games_and_analyses_name_bots_by_label_not_by_path() {
    let temp = TempDir::new("serve-saved-game-labels");
    let policy = bidding_policy(&temp.0);
    let spec = format!("policy:{}", policy.display());
    let mut offered = options(&spec);
    offered.bots.push("heuristic".to_owned());
    let router = app(&offered).unwrap();
    let folder = temp.0.display().to_string();
    let game = new_game_with(&router, "partner=1&opponents=1&target=1").await;
    let (status, _, egn) = send(&router, get(&format!("{game}/game.egn"))).await;
    assert_eq!(status, StatusCode::OK);
    assert!(egn.contains("policy.bin"), "{egn}");
    assert!(!egn.contains(&folder), "the saved game names a path: {egn}");
    let text = std::fs::read_to_string(vendored_game("VWEC_Finals_Annotated.egn")).unwrap();
    let (status, location, body) = send(
        &router,
        upload(&[("file", Some("final.egn"), &text), ("bot", None, "1")]),
    )
    .await;
    assert_eq!(status, StatusCode::SEE_OTHER, "{body}");
    let (_, _, page) = send(&router, get(&location.unwrap())).await;
    assert!(page.contains("Judged by <b>"), "{page}");
    assert!(!page.contains(&folder), "the analysis names a path");
}

/// Analyses a client abandoned stop, and count against "one at a time"
/// until they have: six uploads of a long game with `pimc:200`, each left
/// after half a second, leave the server idle within a second or two,
/// instead of computing on for 20 s each.
#[test]
fn abandoned_analyses_stop_and_hold_the_one_at_a_time_turn_while_they_do() {
    use std::io::Write;
    let cpu_seconds = |pid: u32| -> f64 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .unwrap()
            .1
            .split_whitespace()
            .collect();
        (fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap()) / 100.0
    };
    let text = std::fs::read_to_string(vendored_game("VWEC_Finals_Annotated.egn")).unwrap();
    let boundary = "----euchre-abandon";
    let body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"g.egn\"\r\n\
         Content-Type: application/octet-stream\r\n\r\n{text}\r\n--{boundary}\r\n\
         Content-Disposition: form-data; name=\"bot\"\r\n\r\npimc:200\r\n--{boundary}--\r\n"
    );
    let (mut server, address) = spawn_server(&["--bot", "heuristic", "--bot", "pimc:200"]);
    let mut clients = Vec::new();
    for _ in 0..6 {
        let mut stream = std::net::TcpStream::connect(address).unwrap();
        write!(
            stream,
            "POST /analysis HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        clients.push(stream);
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    // On a loaded machine the server may need longer than the uploads
    // took to get half a second of CPU: wait for it (the clients stay).
    let started = std::time::Instant::now();
    let mut busy = cpu_seconds(server.id());
    while busy <= 0.5 && started.elapsed() < std::time::Duration::from_secs(30) {
        std::thread::sleep(std::time::Duration::from_millis(100));
        busy = cpu_seconds(server.id());
    }
    drop(clients);
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let after_leaving = cpu_seconds(server.id());
    std::thread::sleep(std::time::Duration::from_millis(2000));
    let idle = cpu_seconds(server.id()) - after_leaving;
    server.kill().ok();
    server.wait().ok();
    assert!(
        busy > 0.5,
        "the first analysis was under way ({busy} s of CPU)"
    );
    assert!(
        idle < 0.3,
        "{idle} s of CPU in the 2 s after every client left"
    );
}

/// An upload sent in chunks (no length announced) past the limit is
/// answered 413 with a page that says it is too large.
#[test]
fn a_chunked_upload_past_the_limit_is_refused_as_too_large() {
    use std::io::{Read, Write};
    let (mut server, address) = spawn_server(&["--bot", "heuristic"]);
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    let boundary = "----euchre-chunked";
    write!(
        stream,
        "POST /analysis HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary={boundary}\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    .unwrap();
    let head = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"g.egn\"\r\n\r\n"
    );
    let mut send_chunk = |bytes: &[u8]| {
        write!(stream, "{:x}\r\n", bytes.len())
            .and_then(|()| stream.write_all(bytes))
            .and_then(|()| stream.write_all(b"\r\n"))
            .is_ok()
    };
    send_chunk(head.as_bytes());
    let chunk = vec![b' '; 64 << 10];
    for _ in 0..40 {
        if !send_chunk(&chunk) {
            break; // the server answered and closed
        }
    }
    let _ = stream.write_all(b"0\r\n\r\n");
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    server.kill().ok();
    server.wait().ok();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.contains("too large"), "{answer}");
}
