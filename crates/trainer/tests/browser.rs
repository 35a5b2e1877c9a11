//! End to end in a real browser: `trainer serve` on a free port, headless
//! Chromium driven over the DevTools protocol. It plays a whole hand by
//! clicking, has an illegal card refused, reloads mid-hand, turns hints
//! on, uploads a real game record for analysis, and saves screenshots of
//! the play page, hints, the analysis viewer and the runs page (under
//! `target/screenshots/`; the README shows copies).
//!
//! Needs Chromium: `.ci/run` installs it (`apt-get install chromium`), or
//! point `CHROME` at a Chrome or Chromium binary. All traffic stays on
//! 127.0.0.1 and every wait is bounded.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};
use support::{TempDir, ok, trainer};

/// Kills the child process when dropped, so a failing test leaves no
/// server or browser behind.
struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        self.0.kill().ok();
        self.0.wait().ok();
    }
}

fn chrome_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("CHROME") {
        return PathBuf::from(path);
    }
    for name in ["chromium", "chromium-browser", "google-chrome", "chrome"] {
        if let Ok(output) = Command::new("which").arg(name).output()
            && output.status.success()
        {
            return PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
        }
    }
    panic!(
        "no Chromium found: install it (apt-get install chromium; ./test does) or set CHROME to a Chrome binary"
    );
}

/// Reads lines from `reader` until one contains `marker`, within `limit`.
fn line_with(reader: impl Read + Send + 'static, marker: &'static str) -> String {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(reader).lines().map_while(Result::ok) {
            if line.contains(marker) {
                sender.send(line).ok();
            }
        }
    });
    receiver
        .recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("no line with '{marker}' within 60 s"))
}

/// A minimal DevTools-protocol client for one page.
struct Page {
    socket: tungstenite::WebSocket<TcpStream>,
    next_id: u64,
}

impl Page {
    fn connect(debugger_port: u16) -> Page {
        let targets = http_get(debugger_port, "/json/list");
        let targets: Vec<Value> = serde_json::from_str(&targets).unwrap();
        let page = targets
            .iter()
            .find(|target| target["type"] == "page")
            .unwrap_or_else(|| panic!("no page target in {targets:?}"));
        let url = page["webSocketDebuggerUrl"].as_str().unwrap();
        let stream = TcpStream::connect(("127.0.0.1", debugger_port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let (socket, _) = tungstenite::client(url, stream).expect("the DevTools socket");
        Page { socket, next_id: 0 }
    }

    /// Sends one command and waits for its answer, skipping events.
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.try_call(method, params)
            .unwrap_or_else(|error| panic!("{method}: {error}"))
    }

    /// [`Page::call`], with the browser's error as an `Err`.
    fn try_call(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        self.next_id += 1;
        let id = self.next_id;
        let message = json!({ "id": id, "method": method, "params": params });
        self.socket
            .send(tungstenite::Message::text(message.to_string()))
            .unwrap();
        loop {
            let message = self.socket.read().expect("a DevTools answer within 30 s");
            let Ok(text) = message.to_text() else {
                continue;
            };
            let value: Value = serde_json::from_str(text).unwrap_or(Value::Null);
            if value["id"] == id {
                if !value["error"].is_null() {
                    return Err(value);
                }
                return Ok(value["result"].clone());
            }
        }
    }

    fn eval(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true }),
        );
        result["result"]["value"].clone()
    }

    /// Runs `act`, then waits until a new document has loaded.
    fn navigating(&mut self, act: impl FnOnce(&mut Page)) {
        self.eval("window.__old_document = true");
        act(self);
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            // An evaluation that meets the navigation as it commits fails
            // ("Inspected target navigated or closed"): ask again.
            let fresh = self.try_call(
                "Runtime.evaluate",
                json!({
                    "expression": "window.__old_document === undefined && document.readyState === 'complete'",
                    "returnByValue": true
                }),
            );
            if fresh.is_ok_and(|result| result["result"]["value"] == Value::Bool(true)) {
                return;
            }
            assert!(Instant::now() < deadline, "no new page within 30 s");
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    fn goto(&mut self, url: &str) {
        let url = url.to_owned();
        self.navigating(|page| {
            page.call("Page.navigate", json!({ "url": url }));
        });
    }

    fn reload(&mut self) {
        self.navigating(|page| {
            page.call("Page.reload", json!({}));
        });
    }

    fn exists(&mut self, selector: &str) -> bool {
        self.eval(&format!("document.querySelector({selector:?}) !== null")) == Value::Bool(true)
    }

    fn text(&mut self, selector: &str) -> String {
        self.eval(&format!(
            "(document.querySelector({selector:?}) || {{innerText: ''}}).innerText"
        ))
        .as_str()
        .unwrap_or_default()
        .to_owned()
    }

    fn attribute(&mut self, selector: &str, name: &str) -> String {
        self.eval(&format!(
            "document.querySelector({selector:?}).getAttribute({name:?})"
        ))
        .as_str()
        .unwrap_or_default()
        .to_owned()
    }

    /// A real mouse click at the middle of the element.
    fn click(&mut self, selector: &str) {
        let centre = self.eval(&format!(
            "(() => {{ const e = document.querySelector({selector:?}); e.scrollIntoView({{block: 'center'}}); \
             const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()"
        ));
        let (x, y) = (centre[0].as_f64().unwrap(), centre[1].as_f64().unwrap());
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }),
            );
        }
    }

    fn click_and_wait(&mut self, selector: &str) {
        let selector = selector.to_owned();
        self.navigating(|page| page.click(&selector));
    }

    /// A key pressed and released, as a person's keyboard sends it.
    fn press(&mut self, key: &str, code: &str, key_code: u32) {
        for kind in ["rawKeyDown", "keyUp"] {
            self.call(
                "Input.dispatchKeyEvent",
                json!({ "type": kind, "key": key, "code": code, "windowsVirtualKeyCode": key_code }),
            );
        }
    }

    /// The window as a desk's (1100 pixels wide) or a phone's (390, touch).
    fn viewport(&mut self, width: u32, height: u32, mobile: bool) {
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile }),
        );
    }

    /// How far the page is wider than a screen `width` CSS pixels wide (0
    /// or less: no sideways scrolling). A phone's browser widens its
    /// layout to wide content, so the window's own width would hide it.
    fn overflow(&mut self, width: u32) -> i64 {
        self.eval(&format!(
            "Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - {width}"
        ))
        .as_i64()
        .unwrap()
    }

    /// axe-core's audit of the page as it stands: each violation's impact
    /// and rule, and how many rules passed.
    fn audit(&mut self, axe: &str) -> Audit {
        self.call(
            "Runtime.evaluate",
            json!({ "expression": axe, "returnByValue": true }),
        );
        let result = self.call(
            "Runtime.evaluate",
            json!({
                "expression": "axe.run(document, { resultTypes: ['violations'] }).then(r => ({ \
                    violations: r.violations.map(v => ({ id: v.id, impact: v.impact, nodes: v.nodes.length, \
                        target: v.nodes.map(n => n.target.join(' ')).slice(0, 3).join(', ') })), \
                    passes: r.passes.length }))",
                "awaitPromise": true,
                "returnByValue": true
            }),
        );
        let value = &result["result"]["value"];
        Audit {
            violations: value["violations"]
                .as_array()
                .unwrap_or_else(|| panic!("axe-core gave no result: {result}"))
                .iter()
                .map(|v| {
                    format!(
                        "{} {} ({} nodes: {})",
                        v["impact"].as_str().unwrap_or("?"),
                        v["id"].as_str().unwrap_or("?"),
                        v["nodes"],
                        v["target"].as_str().unwrap_or("")
                    )
                })
                .collect(),
            passes: value["passes"].as_u64().unwrap_or(0),
        }
    }

    /// Tabs through the page from its top: how many of its controls the
    /// keyboard reached, of how many, and any focused control drawn
    /// without a visible focus ring.
    fn tab_walk(&mut self) -> (usize, usize, Vec<String>) {
        self.eval("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)");
        let controls = self
            .eval(
                "[...document.querySelectorAll('a[href], button:not([disabled]), input:not([type=hidden]):not([disabled]), select, summary')]\
                 .filter(e => e.offsetParent !== null || e.tagName === 'SUMMARY').length",
            )
            .as_u64()
            .unwrap() as usize;
        let mut reached = std::collections::HashSet::new();
        let mut unringed = Vec::new();
        for _ in 0..controls + 5 {
            self.press("Tab", "Tab", 9);
            let focused = self.eval(
                "(() => { const e = document.activeElement; if (!e || e === document.body) return null; \
                 if (!e.dataset.walk) e.dataset.walk = String(Math.random()); \
                 const s = getComputedStyle(e); \
                 return [e.dataset.walk, s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2, e.outerHTML.slice(0, 80)]; })()",
            );
            if let Some(focused) = focused.as_array() {
                reached.insert(focused[0].as_str().unwrap_or("").to_owned());
                if focused[1] != Value::Bool(true) {
                    unringed.push(focused[2].as_str().unwrap_or("").to_owned());
                }
            }
        }
        (reached.len(), controls, unringed)
    }

    fn screenshot(&mut self, path: &Path) {
        let shot = self.call(
            "Page.captureScreenshot",
            json!({ "format": "png", "captureBeyondViewport": true }),
        );
        let png = base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().unwrap())
            .unwrap();
        assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
        std::fs::write(path, png).unwrap();
    }
}

/// A plain HTTP/1.1 GET on localhost: enough for the DevTools target list.
fn http_get(port: u16, path: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    // The DevTools server may keep the connection open: read the headers,
    // then exactly Content-Length bytes.
    let mut response = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let read = stream.read(&mut chunk).unwrap();
        assert!(read > 0, "the DevTools server closed the connection early");
        response.extend_from_slice(&chunk[..read]);
        let text = String::from_utf8_lossy(&response).into_owned();
        let Some((head, body)) = text.split_once("\r\n\r\n") else {
            continue;
        };
        let length = head
            .lines()
            .find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse::<usize>().ok())?
            })
            .expect("a Content-Length header");
        if body.len() >= length {
            return body[..length].to_owned();
        }
    }
}

/// A short bidding run with a learning curve, for the runs page.
fn run_with_curve(dir: &Path) -> PathBuf {
    let run = dir.join("bidding-run");
    ok(&trainer(&[
        "train",
        "--phase",
        "bidding",
        "--store",
        "memory",
        "--threads",
        "1",
        "--seed",
        "2",
        "--for",
        "8s",
        "--eval-every",
        "2s",
        "--eval-against",
        "heuristic",
        "--eval-hands",
        "400",
        "--run-dir",
        run.to_str().unwrap(),
    ]));
    run
}

/// axe-core's verdict on one page.
struct Audit {
    /// "impact rule (n nodes: targets)" for each rule the page breaks.
    violations: Vec<String>,
    passes: u64,
}

impl Audit {
    /// The violations an accessibility review must fix first.
    fn grave(&self) -> Vec<&String> {
        self.violations
            .iter()
            .filter(|v| v.starts_with("serious") || v.starts_with("critical"))
            .collect()
    }
}

/// axe-core's script: `AXE_CORE`, or the copy `./test` fetches into
/// `target/axe-core/` (pinned by version and digest).
fn axe_core() -> String {
    let path = std::env::var_os("AXE_CORE").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/axe-core/axe.min.js"),
        PathBuf::from,
    );
    std::fs::read_to_string(&path).unwrap_or_else(|error| {
        panic!(
            "axe-core is not at {} ({error}): ./test fetches it, or point AXE_CORE at axe.min.js",
            path.display()
        )
    })
}

/// A server with a short run to show, a headless Chromium on it, and the
/// audits taken so far.
struct Session {
    page: Page,
    base: String,
    shots: PathBuf,
    axe: String,
    audits: Vec<(String, Audit)>,
    /// The analysis board at a commented decision, once analysed.
    board: Option<String>,
    _chrome: Reaped,
    _server: Reaped,
}

impl Session {
    fn start(temp: &TempDir) -> Session {
        let run = run_with_curve(&temp.0);
        let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("../screenshots");
        std::fs::create_dir_all(&shots).unwrap();
        let mut server = Command::new(env!("CARGO_BIN_EXE_trainer"))
            .args([
                "serve",
                "--port",
                "0",
                "--bot",
                "heuristic",
                "--seed",
                "1",
                "--run-dir",
            ])
            .arg(&run)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("trainer serve starts");
        let stdout = server.stdout.take().unwrap();
        let server = Reaped(server);
        let line = line_with(stdout, "serving on");
        let base = line
            .split_whitespace()
            .find(|word| word.starts_with("http://127.0.0.1:"))
            .expect("the URL")
            .trim_end_matches('/')
            .to_owned();
        let profile = temp.0.join("chrome-profile");
        let mut chrome = Command::new(chrome_binary())
            .args([
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
                "--window-size=1100,1000",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("Chromium starts");
        let stderr = chrome.stderr.take().unwrap();
        let chrome = Reaped(chrome);
        let devtools = line_with(stderr, "DevTools listening on");
        let port: u16 = devtools
            .split("127.0.0.1:")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .and_then(|port| port.parse().ok())
            .unwrap_or_else(|| panic!("no port in '{devtools}'"));
        let mut page = Page::connect(port);
        page.call("Page.enable", json!({}));
        Session {
            page,
            base,
            shots,
            axe: axe_core(),
            audits: Vec::new(),
            board: None,
            _chrome: chrome,
            _server: server,
        }
    }

    fn audit(&mut self, name: &str) {
        let audit = self.page.audit(&self.axe);
        self.audits.push((name.to_owned(), audit));
    }

    fn shot(&mut self, name: &str) {
        let path = self.shots.join(name);
        self.page.screenshot(&path);
    }

    fn url(&mut self) -> String {
        self.page.eval("location.href").as_str().unwrap().to_owned()
    }

    /// Deals a game from the start page with these choices.
    fn deal(&mut self, partner: &str, opponents: &str, practice: bool) -> String {
        let base = self.base.clone();
        self.page.goto(&format!("{base}/"));
        self.page.eval(&format!(
            "document.querySelector('#partner').value = {partner:?}; \
             document.querySelector('#opponents').value = {opponents:?}; \
             document.querySelector('#practice').checked = {practice}"
        ));
        self.page.click_and_wait("#new-game button");
        let url = self.url();
        assert!(url.contains("/game/"), "{url}");
        url
    }
}

#[test]
fn a_hand_is_played_in_a_real_browser() {
    let temp = TempDir::new("browser");
    let mut session = Session::start(&temp);
    difficulty_picker(&mut session);
    let game_url = refusal_and_undo(&mut session);
    forced_cards_and_one_click_analysis(&mut session, &game_url);
    runs_page(&mut session);
    hints_and_keyboard(&mut session);
    analysis_board(&mut session);
    on_a_phone(&mut session);
    cross_site_post_refused(&mut session);

    println!("accessibility audit (axe-core), per page:");
    println!(
        "{:<34} {:>6} {:>10}  violations",
        "page", "passes", "violations"
    );
    for (name, audit) in &session.audits {
        println!(
            "{name:<34} {:>6} {:>10}  {}",
            audit.passes,
            audit.violations.len(),
            audit.violations.join("; ")
        );
    }
    for (name, audit) in &session.audits {
        assert!(
            audit.grave().is_empty(),
            "serious or critical accessibility violations on {name}: {:?}",
            audit.grave()
        );
    }
    assert!(session.audits.len() >= 12, "every page was audited");
}

/// The start page offers the difficulty ladder by name, with what each
/// rung is; the chosen bots are named so at the table.
fn difficulty_picker(session: &mut Session) {
    let base = session.base.clone();
    session.page.goto(&format!("{base}/"));
    assert!(session.page.exists("#new-game"), "the new-game form");
    let ladder = session.page.text("#ladder");
    for rung in ["Novice", "Club", "Strong", "Expert"] {
        assert!(ladder.contains(rung), "{ladder}");
    }
    let options = session.page.text("#opponents");
    assert!(options.contains("Expert (pimc:200)"), "{options}");
    session.audit("new game (difficulty picker)");
    session
        .page
        .eval("document.querySelector('#opponents').value = 'pimc:200'");
    session.shot("new-game.png");
}

/// An illegal card is refused with its reason and changes nothing; in a
/// practice game a move is taken back, and the table is as it was.
fn refusal_and_undo(session: &mut Session) -> String {
    let game_url = session.deal("heuristic", "pimc:200", true);
    let players = session.page.text(".players");
    assert!(
        players.contains("Expert (pimc:200)") && players.contains("Novice (heuristic)"),
        "bots named by their rung: {players}"
    );
    session.audit("table, bidding");
    let page = &mut session.page;
    let hand_before = page.text("#hand");
    assert!(
        page.exists("button.card.illegal"),
        "cards are not playable while bidding"
    );
    let reason = page.attribute("button.card.illegal", "title");
    assert!(!reason.is_empty(), "an illegal card says why on hover");
    page.click_and_wait("button.card.illegal");
    let error = page.text(".error");
    assert!(
        error.contains("is not allowed"),
        "refused with a reason: {error}"
    );
    assert_eq!(page.text("#hand"), hand_before, "the refused card stays");
    page.goto(&game_url);
    assert_eq!(page.text("#hand"), hand_before, "the game is unchanged");

    let bids_before = page.text("ol.bids");
    assert!(
        page.eval("document.querySelector('#undo button').disabled") == Value::Bool(true),
        "nothing to take back before the first move"
    );
    page.click_and_wait("button.bid");
    assert_ne!(page.text("ol.bids"), bids_before, "the bid was made");
    page.click_and_wait("#undo button");
    assert_eq!(page.text("ol.bids"), bids_before, "the bid was taken back");
    assert!(
        page.text(".tools + .help").contains("1 move taken back"),
        "{}",
        page.text("main")
    );
    game_url
}

/// With forced cards on, the person is never asked to play their only
/// card; the hand ends, and the game is analysed in one click.
fn forced_cards_and_one_click_analysis(session: &mut Session, game_url: &str) {
    session.page.goto(game_url);
    session.page.click_and_wait("#forced-toggle button");
    let mut reloaded = false;
    let mut clicks = 0;
    let mut audited = false;
    while !session.page.exists("#summary") {
        assert!(clicks < 40, "the hand did not end within 40 clicks");
        let page = &mut session.page;
        if page.exists("button.card.legal") && !page.exists("button.bid") {
            let legal = page
                .eval("document.querySelectorAll('button.card.legal').length")
                .as_u64()
                .unwrap();
            let discarding = page.text("#prompt").contains("discard");
            assert!(
                legal > 1 || discarding,
                "asked to play the only legal card: {}",
                page.text("main")
            );
            if !reloaded && page.exists("#trick") {
                let before = page.text("main");
                page.reload();
                assert_eq!(page.text("main"), before, "a reload shows the same game");
                reloaded = true;
            }
            if !audited {
                assert!(page.exists("#trump"), "the trump badge");
                session.shot("play.png");
                session.audit("table, card play");
                audited = true;
            }
            session.page.click_and_wait("button.card.legal");
        } else if page.exists("button.bid") {
            page.click_and_wait("button.bid");
        } else {
            panic!("no move offered:\n{}", page.text("main"));
        }
        clicks += 1;
    }
    let page = &mut session.page;
    let summary = page.text("#summary");
    assert!(summary.contains("Hand over"), "{summary}");
    let tricks: u32 = ["#tricks-ns", "#tricks-ew"]
        .iter()
        .map(|selector| page.text(selector).parse::<u32>().unwrap_or(0))
        .sum();
    assert!(
        tricks == 5 || summary.contains("Everyone passed"),
        "five tricks were played: {summary}"
    );
    if tricks == 5 {
        let rows = page.eval("document.querySelectorAll('#tricks tr').length");
        assert_eq!(
            rows.as_u64(),
            Some(6),
            "the hand's five tricks, with who led and won each"
        );
    }
    page.click("#reveal summary");
    session.shot("play-summary.png");
    session.audit("table, hand over");

    session.page.click_and_wait("#analyse-game button");
    let url = session.url();
    assert!(url.contains("/analysis/"), "{url}");
    let players = session.page.text("#players");
    assert!(
        players.contains("You (S)"),
        "the person's own game: {players}"
    );
    session.audit("analysis of a game just played");
}

fn runs_page(session: &mut Session) {
    let base = session.base.clone();
    let page = &mut session.page;
    page.goto(&format!("{base}/runs"));
    let status = page.text("pre.status");
    assert!(status.contains("checkpoint iteration"), "{status}");
    assert!(
        page.exists("img.curve"),
        "the learning curve is on the page"
    );
    let curve_loaded = page.eval("document.querySelector('img.curve').naturalWidth > 0");
    assert_eq!(curve_loaded, Value::Bool(true), "curve.svg loads");
    session.shot("runs.png");
    session.audit("runs");
    session.page.goto(&format!("{base}/no-such-page"));
    session.audit("not found");
}

/// Hints mark the best move and say what it does; every control of the
/// table is reached by the keyboard and shows where the focus is.
fn hints_and_keyboard(session: &mut Session) {
    session.deal("heuristic", "heuristic", false);
    let page = &mut session.page;
    assert!(!page.exists("#hints"), "hints are off by default");
    page.click_and_wait("#hints-toggle button");
    assert!(page.exists("#hints"), "the toggle shows the hints");
    let advice = page.text("#advice");
    assert!(
        advice.starts_with("Best: ")
            && (advice.contains("more than") || advice.contains("as good as"))
            && advice.contains(": it "),
        "the best move, by how much, and what it does: {advice}"
    );
    assert!(page.exists(".best"), "the best move is marked on the table");
    let hints = page.text("#hints");
    assert!(hints.contains("points per hand"), "{hints}");
    assert!(
        hints.contains("to win the game"),
        "the chance of winning the game beside the points: {hints}"
    );
    assert!(page.exists("#save-egn"), "the game can be saved as EGN");
    session.shot("play-hints.png");
    session.audit("table with hints");
    let (reached, controls, unringed) = session.page.tab_walk();
    assert_eq!(reached, controls, "the keyboard reaches every control");
    assert!(unringed.is_empty(), "focused without a ring: {unringed:?}");
}

/// The analysis board: a real championship record uploaded as a person
/// would; the position and the decision side by side; an annotator's
/// comment in an alternative line; marks on the moves; arrow keys.
fn analysis_board(session: &mut Session) {
    let base = session.base.clone();
    session.page.goto(&format!("{base}/analysis"));
    session.audit("analysis form");
    let record = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../euchre-game/tests/egn/VWEC_Finals_Annotated.egn")
        .canonicalize()
        .unwrap();
    let page = &mut session.page;
    let input = page.call(
        "Runtime.evaluate",
        json!({ "expression": "document.querySelector('input[type=file]')" }),
    );
    let object = input["result"]["objectId"].as_str().unwrap().to_owned();
    page.call(
        "DOM.setFileInputFiles",
        json!({ "files": [record.display().to_string()], "objectId": object }),
    );
    page.eval("document.querySelector('[name=bot]').value = 'pimc:20'");
    page.click_and_wait("#analyse button");
    let players = page.text("#players");
    assert!(
        players.contains("WWMM (N)") && players.contains("Euchrazy1 (S)"),
        "{players}"
    );
    assert!(
        players.contains("games lost"),
        "each player's cost in games beside the points: {players}"
    );
    let judged = session.page.text(".judged");
    assert!(
        judged.contains("Club (pimc:20)"),
        "the judge by its rung: {judged}"
    );
    let analysis_url = session.url();
    let analysis_url = analysis_url.split('#').next().unwrap().to_owned();
    let board = format!("{analysis_url}?deal=4&step=7#board");
    session.board = Some(board.clone());
    session.page.goto(&board);
    let page = &mut session.page;
    let decision = page.text("#decision");
    assert!(
        decision.contains("in an alternative line from here") && decision.contains("disaster"),
        "the alternative line's comment where it branches off: {decision}"
    );
    assert!(
        page.text("#beside-loss").ends_with(" of a game") && decision.contains("to win"),
        "the move's cost in chances of winning beside its points: {decision}"
    );
    let layout = page.eval(
        "(() => { const p = document.querySelector('.position').getBoundingClientRect(); \
         const d = document.querySelector('#decision').getBoundingClientRect(); \
         return [p.top, d.top, p.right <= d.left, d.top < window.innerHeight]; })()",
    );
    assert_eq!(layout[2], Value::Bool(true), "side by side: {layout}");
    assert_eq!(
        layout[3],
        Value::Bool(true),
        "the decision in view: {layout}"
    );
    let offset = page
        .eval("document.querySelector('#decision').getBoundingClientRect().top + window.scrollY");
    println!("desk (1100 px): the decision starts {offset} px below the top of the page");
    let marks = page
        .eval("[...document.querySelectorAll('#steps .mark')].map(m => m.textContent).join(' ')");
    let marks = marks.as_str().unwrap_or_default().to_owned();
    assert!(
        marks
            .split(' ')
            .all(|m| ["??", "?", "?!", "!", "≠"].contains(&m))
            && !marks.is_empty(),
        "marks written on the moves: {marks}"
    );
    assert!(
        page.text("#steps").contains("Trick 1"),
        "moves grouped by trick"
    );
    session.shot("analysis.png");
    session.audit("analysis board");
    let page = &mut session.page;
    page.navigating(|page| page.press("ArrowRight", "ArrowRight", 39));
    let url = page.eval("location.href").as_str().unwrap().to_owned();
    assert!(url.contains("step=8"), "→ steps to the next move: {url}");
    page.navigating(|page| page.press("ArrowDown", "ArrowDown", 40));
    let url = page.eval("location.href").as_str().unwrap().to_owned();
    assert!(
        url.contains("deal=5&step=0"),
        "↓ goes to the next hand: {url}"
    );
    // At the hand's first move there is no previous one: ← stays.
    page.press("ArrowLeft", "ArrowLeft", 37);
    std::thread::sleep(Duration::from_millis(300));
    let url = page.eval("location.href").as_str().unwrap().to_owned();
    assert!(
        url.contains("deal=5&step=0"),
        "← at the first move stays: {url}"
    );
}

/// On a 390-pixel phone: nothing wider than the screen, the hand in view.
fn on_a_phone(session: &mut Session) {
    session.page.viewport(390, 844, true);
    let game = session.deal("heuristic", "heuristic", false);
    session.page.goto(&game);
    let overflow = session.page.overflow(390);
    assert!(
        overflow <= 0,
        "the table fits the phone ({overflow} px over)"
    );
    let hand_in_view = session.page.eval(
        "document.querySelector('#hand-section').getBoundingClientRect().bottom <= window.innerHeight + 1",
    );
    assert_eq!(
        hand_in_view,
        Value::Bool(true),
        "the hand is always in view"
    );
    session.shot("play-phone.png");
    session.audit("table on a phone");
    let board = session.board.clone().expect("the board was analysed");
    session.page.goto(&board);
    let overflow = session.page.overflow(390);
    assert!(
        overflow <= 0,
        "the board fits the phone ({overflow} px over)"
    );
    let top = |page: &mut Page, selector: &str| {
        page.eval(&format!(
            "document.querySelector({selector:?}).getBoundingClientRect().top + window.scrollY"
        ))
    };
    let (board, decision) = (
        top(&mut session.page, "#board"),
        top(&mut session.page, "#decision"),
    );
    println!(
        "phone (390 px): the board starts {board} px and the decision {decision} px below the top of the page"
    );
    session.shot("analysis-phone.png");
    session.audit("analysis board on a phone");
    session.page.viewport(1100, 1000, false);
}

/// Another site's page posts the new-game form to this server: the
/// browser sends it marked cross-site, and the server refuses it.
fn cross_site_post_refused(session: &mut Session) {
    let base = session.base.clone();
    let foreign = format!(
        "<form method=\"post\" action=\"{base}/games\">\
         <input name=\"partner\" value=\"heuristic\">\
         <input name=\"opponents\" value=\"heuristic\"></form>"
    );
    let page = &mut session.page;
    page.goto(&format!(
        "data:text/html;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(foreign)
    ));
    page.navigating(|page| {
        page.eval("document.forms[0].submit()");
    });
    let refused = page.text("body");
    assert!(
        refused.contains("only from its own pages"),
        "a cross-site post was not refused: {refused}"
    );
}
