//! What every request passes before a handler sees it: a bound on its body
//! and its time, and a refusal of posts that another site's page made the
//! user's browser send. The server binds to loopback by default, but any
//! page the user visits can post a form to `http://127.0.0.1:PORT/`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Response};

use super::pages;

/// The longest a request may take, body included: a hand of bot moves at
/// the bots' bounded cost takes well under a second.
pub const REQUEST_DEADLINE: Duration = Duration::from_secs(20);

/// The largest request body: a move form is a few dozen bytes, a bot API
/// view a few hundred.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// The largest game a client may upload for analysis: EGN caps a game at
/// 100 deals, a few hundred KiB with annotations.
pub const MAX_UPLOAD_BYTES: usize = 1024 * 1024;

/// The names a request's `Host` may give this server. A page on another
/// site can make the browser resolve its own domain name to 127.0.0.1 (DNS
/// rebinding) and then talk to this server as a same-origin page; the
/// browser still sends that domain as the `Host`. So a request whose Host
/// is not an IP address, `localhost`, or a name the operator allowed
/// (`--allow-host`) is refused.
#[derive(Debug, Default)]
pub struct AllowedHosts {
    names: Vec<String>,
}

impl AllowedHosts {
    pub fn new(names: &[String]) -> AllowedHosts {
        AllowedHosts {
            names: names.iter().map(|name| name.to_ascii_lowercase()).collect(),
        }
    }

    /// Why the request's Host is refused, if it is.
    fn refusal(&self, headers: &HeaderMap) -> Option<String> {
        // HTTP/1.0 clients may send none; no browser does.
        let host = headers.get(header::HOST)?;
        let Ok(host) = host.to_str() else {
            return Some("the Host header is not text".to_owned());
        };
        let name = host_name(host).to_ascii_lowercase();
        let allowed = name == "localhost"
            || name
                .trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<std::net::IpAddr>()
                .is_ok()
            || self.names.contains(&name);
        (!allowed).then(|| {
            format!(
                "this server answers only to an IP address, localhost, or a name it was started with (--allow-host NAME), not to '{name}': a page on another site cannot reach it through its own name"
            )
        })
    }
}

/// The name in a Host header, without its port.
fn host_name(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        // [::1]:8080
        return rest.split_once(']').map_or(host, |(address, _)| address);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    }
}

/// Refuses a request whose Host is not this server's (421, see
/// [`AllowedHosts`]), a post from another site's page (403), and a body declared
/// larger than [`MAX_BODY_BYTES`] (413), then runs the request with at most
/// [`REQUEST_DEADLINE`] to finish (503 after it; dropping the handler also
/// cancels its bots, see [`Cancel`]).
pub async fn bounded_and_same_origin(
    State(hosts): State<Arc<AllowedHosts>>,
    request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path().to_owned();
    if let Some(reason) = hosts.refusal(request.headers()) {
        let mut response = refusal(&path, StatusCode::MISDIRECTED_REQUEST, &reason);
        forbid_framing(response.headers_mut());
        return response;
    }
    if request.method() == Method::POST
        && let Some(reason) = cross_site(request.headers())
    {
        return refusal(&path, StatusCode::FORBIDDEN, &reason);
    }
    if let Some(length) = declared_length(request.headers())
        && length > body_limit(&path) as u64
    {
        return too_large(&path);
    }
    let mut response = match tokio::time::timeout(REQUEST_DEADLINE, next.run(request)).await {
        Ok(response) => response,
        Err(_) => refusal(
            &path,
            StatusCode::SERVICE_UNAVAILABLE,
            &format!(
                "the request took longer than {} s and was stopped; try again",
                REQUEST_DEADLINE.as_secs()
            ),
        ),
    };
    forbid_framing(response.headers_mut());
    response
}

/// No other site may frame these pages (clickjacking: a hidden frame over
/// a decoy, so the person's clicks play moves they did not mean). Both
/// headers, for browsers that know only the older one.
fn forbid_framing(headers: &mut HeaderMap) {
    headers.insert(
        header::X_FRAME_OPTIONS,
        axum::http::HeaderValue::from_static("DENY"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        axum::http::HeaderValue::from_static("frame-ancestors 'none'; script-src 'self'"),
    );
}

/// Why a post comes from another site, if it does. Browsers send
/// `Sec-Fetch-Site` on every request and `Origin` on every cross-origin
/// post; a program such as curl sends neither, and is not a browser a page
/// could drive.
fn cross_site(headers: &HeaderMap) -> Option<String> {
    if let Some(site) = headers.get("sec-fetch-site") {
        let site = site.to_str().unwrap_or("unreadable");
        if site != "same-origin" && site != "none" {
            return Some(format!(
                "this server takes posts only from its own pages, and this one came from a {site} page"
            ));
        }
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        let host = headers
            .get(header::HOST)
            .and_then(|host| host.to_str().ok())
            .unwrap_or("");
        let origin_host = origin.split_once("://").map_or("", |(_, rest)| rest);
        if origin_host.is_empty() || origin_host != host {
            return Some(format!(
                "this server takes posts only from its own pages, and this one came from {}",
                if origin.is_empty() {
                    "an unnamed origin"
                } else {
                    origin
                }
            ));
        }
    }
    None
}

fn declared_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .parse()
        .ok()
}

/// The largest body a path takes: a game uploaded for analysis may be a
/// few hundred KiB; everything else is a form or a view.
fn body_limit(path: &str) -> usize {
    if path == "/analysis" {
        MAX_UPLOAD_BYTES
    } else {
        MAX_BODY_BYTES
    }
}

/// 413, as JSON for the API and as a page for the rest.
pub fn too_large(path: &str) -> Response {
    let limit = body_limit(path) / 1024;
    let what = if path == "/analysis" {
        "a game file"
    } else {
        "a move or a view is a few hundred bytes"
    };
    refusal(
        path,
        StatusCode::PAYLOAD_TOO_LARGE,
        &format!("the request body is larger than {limit} KiB ({what})"),
    )
}

/// A refusal in the form its caller reads: JSON under `/api/`, a page
/// elsewhere.
pub fn refusal(path: &str, status: StatusCode, message: &str) -> Response {
    if path.starts_with("/api/") {
        (status, axum::Json(serde_json::json!({ "error": message }))).into_response()
    } else {
        let title = status.canonical_reason().unwrap_or("Refused");
        (status, Html(pages::error_page(title, message))).into_response()
    }
}

/// 405 with a body that says what the path takes.
pub async fn method_not_allowed(request: Request) -> Response {
    let path = request.uri().path().to_owned();
    let allowed = if path.starts_with("/api/")
        || path == "/games"
        || path.ends_with("/move")
        || path.ends_with("/next")
    {
        "POST"
    } else {
        "GET"
    };
    let mut response = refusal(
        &path,
        StatusCode::METHOD_NOT_ALLOWED,
        &format!("{path} takes {allowed} requests, not {}", request.method()),
    );
    if let Ok(value) = allowed.parse() {
        response.headers_mut().insert(header::ALLOW, value);
    }
    response
}

/// Set when the work a request started should stop: its client went away
/// (the handler's future was dropped), its time ran out, or the server is
/// shutting down. Bots check it between decisions.
#[derive(Debug)]
pub struct Cancel {
    flag: Arc<AtomicBool>,
    shutdown: Arc<AtomicBool>,
}

impl Cancel {
    pub fn new(shutdown: &Arc<AtomicBool>) -> Cancel {
        Cancel {
            flag: Arc::new(AtomicBool::new(false)),
            shutdown: Arc::clone(shutdown),
        }
    }

    /// The check a blocking task asks before each bot decision, and the
    /// bots between worlds within one ([`euchre_bots::stop`]).
    pub fn checker(&self) -> euchre_bots::stop::StopCheck {
        let flag = Arc::clone(&self.flag);
        let shutdown = Arc::clone(&self.shutdown);
        Arc::new(move || flag.load(Ordering::Relaxed) || shutdown.load(Ordering::Relaxed))
    }
}

impl Drop for Cancel {
    fn drop(&mut self) {
        self.flag.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, value.parse().unwrap());
        }
        map
    }

    #[test]
    fn only_same_origin_posts_pass() {
        assert!(cross_site(&headers(&[])).is_none(), "curl sends neither");
        assert!(cross_site(&headers(&[("sec-fetch-site", "same-origin")])).is_none());
        assert!(cross_site(&headers(&[("sec-fetch-site", "none")])).is_none());
        assert!(
            cross_site(&headers(&[
                ("origin", "http://127.0.0.1:8080"),
                ("host", "127.0.0.1:8080")
            ]))
            .is_none()
        );
        assert!(cross_site(&headers(&[("sec-fetch-site", "cross-site")])).is_some());
        assert!(cross_site(&headers(&[("sec-fetch-site", "same-site")])).is_some());
        assert!(
            cross_site(&headers(&[
                ("origin", "https://evil.example"),
                ("host", "127.0.0.1:8080")
            ]))
            .is_some()
        );
        assert!(cross_site(&headers(&[("origin", "null"), ("host", "127.0.0.1:8080")])).is_some());
    }

    #[test]
    fn only_requests_naming_this_server_pass() {
        let hosts = AllowedHosts::new(&["euchre.lan".to_owned()]);
        for host in [
            "127.0.0.1:8080",
            "localhost:8080",
            "LOCALHOST",
            "[::1]:8080",
            "192.168.1.5:80",
            "euchre.lan:8080",
            "Euchre.LAN",
        ] {
            assert!(
                hosts.refusal(&headers(&[("host", host)])).is_none(),
                "{host}"
            );
        }
        assert!(hosts.refusal(&headers(&[])).is_none(), "an HTTP/1.0 client");
        for host in [
            "evil.example:8080",
            "127.0.0.1.evil.example",
            "localhost.evil.example:80",
        ] {
            let refusal = hosts.refusal(&headers(&[("host", host)]));
            assert!(
                refusal.is_some_and(|why| why.contains("--allow-host")),
                "{host}"
            );
        }
    }

    #[test]
    fn dropping_the_cancel_stops_its_work() {
        let shutdown = Arc::new(AtomicBool::new(false));
        let cancel = Cancel::new(&shutdown);
        let stop = cancel.checker();
        assert!(!stop());
        drop(cancel);
        assert!(stop());
        let other = Cancel::new(&shutdown);
        let stop = other.checker();
        shutdown.store(true, Ordering::Relaxed);
        assert!(stop(), "a shutdown stops every request's work");
    }
}
