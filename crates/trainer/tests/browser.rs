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

#[test]
fn a_hand_is_played_in_a_real_browser() {
    let temp = TempDir::new("browser");
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
    let _chrome = Reaped(chrome);
    let devtools = line_with(stderr, "DevTools listening on");
    let port: u16 = devtools
        .split("127.0.0.1:")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|port| port.parse().ok())
        .unwrap_or_else(|| panic!("no port in '{devtools}'"));
    let mut page = Page::connect(port);
    page.call("Page.enable", json!({}));

    // Deal a game from the first page.
    page.goto(&format!("{base}/"));
    assert!(
        page.exists("#new-game"),
        "the start page has the new-game form"
    );
    page.click_and_wait("#new-game button");
    let game_url = page.eval("location.href").as_str().unwrap().to_owned();
    assert!(game_url.contains("/game/"), "{game_url}");

    // While bidding every card is dimmed, with the reason on hover; a click
    // on one is refused and changes nothing.
    let hand_before = page.text("#hand");
    assert!(
        page.exists("button.card.illegal"),
        "cards are dimmed while bidding"
    );
    let reason = page.attribute("button.card.illegal", "title");
    assert!(!reason.is_empty(), "an illegal card says why on hover");
    page.click_and_wait("button.card.illegal");
    let error = page.text(".error");
    assert!(
        error.contains("is not allowed"),
        "refused with a reason: {error}"
    );
    assert_eq!(
        page.text("#hand"),
        hand_before,
        "the refused card stays in the hand"
    );
    // The refusal is rendered at the move's URL; back to the game's own.
    page.goto(&game_url);
    assert_eq!(page.text("#hand"), hand_before, "the game is unchanged");

    // Play the hand out by clicking, reloading once mid-hand.
    let mut reloaded = false;
    let mut clicks = 0;
    let mut mid_hand_shot = false;
    while !page.exists("#summary") {
        assert!(clicks < 40, "the hand did not end within 40 clicks");
        if page.exists("button.card.legal") && !page.exists("button.bid") {
            if !reloaded && page.exists("#trick") {
                let before = page.text("main");
                page.reload();
                assert_eq!(page.text("main"), before, "a reload shows the same game");
                assert_eq!(page.eval("location.href").as_str(), Some(game_url.as_str()));
                reloaded = true;
            }
            if !mid_hand_shot {
                page.screenshot(&shots.join("play.png"));
                mid_hand_shot = true;
            }
            page.click_and_wait("button.card.legal");
        } else if page.exists("button.bid") {
            page.click_and_wait("button.bid");
        } else {
            panic!("no move offered:\n{}", page.text("main"));
        }
        clicks += 1;
    }
    assert!(
        reloaded,
        "the hand reached card play, where the test reloads"
    );
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
    page.click("#reveal summary");
    page.screenshot(&shots.join("play-summary.png"));

    // The runs page shows the status and the curve.
    page.goto(&format!("{base}/runs"));
    let status = page.text("pre.status");
    assert!(status.contains("checkpoint iteration"), "{status}");
    assert!(
        page.exists("img.curve"),
        "the learning curve is on the page"
    );
    let curve_loaded = page.eval("document.querySelector('img.curve').naturalWidth > 0");
    assert_eq!(curve_loaded, Value::Bool(true), "curve.svg loads");
    page.screenshot(&shots.join("runs.png"));

    // Hints at the table: off until the person asks, then beside their own
    // moves only.
    page.goto(&format!("{base}/"));
    page.click_and_wait("#new-game button");
    assert!(!page.exists("#hints"), "hints are off by default");
    page.click_and_wait("#hints-toggle button");
    assert!(page.exists("#hints"), "the toggle shows the hints");
    let hints = page.text("#hints");
    assert!(hints.contains("points per hand"), "{hints}");
    let legal = page.eval("document.querySelectorAll('#hints li').length");
    assert!(legal.as_u64().unwrap_or(0) >= 2, "one hint per legal move");
    page.screenshot(&shots.join("play-hints.png"));
    assert!(page.exists("#save-egn"), "the game can be saved as EGN");

    // Analysis: upload a real championship record through the file input,
    // as a person would, and step to an annotated decision.
    page.goto(&format!("{base}/analysis"));
    let record = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../euchre-game/tests/egn/VWEC_Finals_Annotated.egn")
        .canonicalize()
        .unwrap();
    let input = page.call(
        "Runtime.evaluate",
        json!({ "expression": "document.querySelector('input[type=file]')" }),
    );
    let object = input["result"]["objectId"].as_str().unwrap().to_owned();
    page.call(
        "DOM.setFileInputFiles",
        json!({ "files": [record.display().to_string()], "objectId": object }),
    );
    page.eval("document.querySelector('input[name=bot]').value = 'pimc:20'");
    page.click_and_wait("#analyse button");
    let players = page.text("#players");
    assert!(
        players.contains("WWMM (N)") && players.contains("Euchrazy1 (S)"),
        "{players}"
    );
    let analysis_url = page.eval("location.href").as_str().unwrap().to_owned();
    page.goto(&format!("{analysis_url}?deal=1&step=4"));
    let decision = page.text("#decision");
    assert!(
        decision.contains("Pretty ambitious next call"),
        "the annotator's comment beside the bot's judgement: {decision}"
    );
    assert!(page.exists("table.options"), "each move's value");
    page.screenshot(&shots.join("analysis.png"));
    page.click_and_wait("#next");
    assert_ne!(page.text("#decision"), decision, "the next move");

    // Another site's page posts the new-game form to this server: the
    // browser sends the post, marked cross-site, and the server refuses it.
    let foreign = format!(
        "<form method=\"post\" action=\"{base}/games\">\
         <input name=\"partner\" value=\"heuristic\">\
         <input name=\"opponents\" value=\"heuristic\"></form>"
    );
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
    drop(server);
}
