//! A web console served by `brine-api` itself, as rest_cherrypy serves
//! one (SaltGUI's documented setup): `rest_cherrypy: app:` is an HTML
//! file answered at `app_path` (default `/app`) and below it, and to any
//! other GET a browser makes for a page (its Accept names `text/html` and
//! is not just `*/*`) outside `static_path`; `static:` is a folder served
//! at `static_path` (default `/static`). Neither needs a login, as in
//! Salt. Files are read only from inside those folders (no `..`, no
//! symlink out), bounded in size.

use super::reply::error_page;
use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::Response;
use std::path::{Path, PathBuf};

/// The largest file served.
const MAX_FILE: u64 = 32 << 20;

/// Where the console lives.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AppConfig {
    /// `app`: the HTML file.
    pub app: Option<PathBuf>,
    /// `app_path`.
    pub app_path: String,
    /// `static`: the folder.
    pub static_dir: Option<PathBuf>,
    /// `static_path`.
    pub static_path: String,
}

impl AppConfig {
    pub fn is_off(&self) -> bool {
        self.app.is_none() && self.static_dir.is_none()
    }
}

/// Whether `path` is `prefix` or below it.
fn under(path: &str, prefix: &str) -> bool {
    path == prefix
        || path
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// A browser asking for a page: Salt's rule for sending it the app.
pub fn wants_page(headers: &HeaderMap) -> bool {
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    accept.contains("text/html") && accept.trim() != "*/*"
}

/// The answer for a `method` request of `path` (from a browser asking
/// for a page: [`wants_page`]) when the console serves it, else `None`
/// (the API's routes answer).
pub async fn answer(cfg: &AppConfig, method: &Method, path: &str, page: bool) -> Option<Response> {
    if cfg.is_off() || method != Method::GET {
        return None;
    }
    if let Some(dir) = &cfg.static_dir {
        if under(path, &cfg.static_path) {
            let rest = &path[cfg.static_path.len()..];
            return Some(static_file(dir, rest).await);
        }
    }
    let app = cfg.app.as_ref()?;
    if under(path, &cfg.app_path) || page {
        return Some(send(app, "text/html;charset=utf-8").await);
    }
    None
}

/// `rest` (after `static_path`) inside `dir`, or Salt's 404 page.
async fn static_file(dir: &Path, rest: &str) -> Response {
    let parts: Vec<&str> = rest.split('/').filter(|p| !p.is_empty()).collect();
    let clean = !parts.is_empty()
        && parts
            .iter()
            .all(|p| *p != ".." && *p != "." && !p.contains('\\') && !p.contains('\0'));
    let found = clean
        .then(|| {
            let p = parts.iter().fold(dir.to_path_buf(), |acc, s| acc.join(s));
            // A symlink must not lead out of the folder.
            let real = p.canonicalize().ok()?;
            let root = dir.canonicalize().ok()?;
            real.starts_with(&root).then_some(real)
        })
        .flatten();
    match found {
        Some(p) if p.is_file() => {
            let ctype = content_type(&p);
            send(&p, ctype).await
        }
        _ => not_found(rest),
    }
}

/// The type of a static file, by its extension (as CherryPy's table).
fn content_type(p: &Path) -> &'static str {
    match p
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("html" | "htm") => "text/html",
        Some("js" | "mjs") => "text/javascript",
        Some("css") => "text/css",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("svg") => "image/svg+xml",
        Some("ico") => "image/vnd.microsoft.icon",
        Some("json" | "map") => "application/json",
        Some("txt") => "text/plain",
        Some("woff") => "font/woff",
        Some("woff2") => "font/woff2",
        _ => "application/octet-stream",
    }
}

fn not_found(rest: &str) -> Response {
    let mut r = Response::new(Body::from(error_page(
        StatusCode::NOT_FOUND,
        &format!("The path '{rest}' was not found."),
    )));
    *r.status_mut() = StatusCode::NOT_FOUND;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html;charset=utf-8"),
    );
    r
}

/// The file at `p` with `ctype`, bounded.
async fn send(p: &Path, ctype: &'static str) -> Response {
    let body = match tokio::fs::metadata(p).await {
        Ok(m) if m.len() <= MAX_FILE => tokio::fs::read(p).await.ok(),
        Ok(_) => {
            tracing::warn!("{}: larger than {MAX_FILE} bytes; not served", p.display());
            None
        }
        Err(e) => {
            tracing::warn!("{}: {e}", p.display());
            None
        }
    };
    match body {
        Some(b) => {
            let mut r = Response::new(Body::from(b));
            r.headers_mut()
                .insert(header::CONTENT_TYPE, HeaderValue::from_static(ctype));
            r
        }
        None => not_found(&p.display().to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn get(cfg: &AppConfig, path: &str, accept: &str) -> Option<Response> {
        let mut h = HeaderMap::new();
        if let Ok(v) = HeaderValue::from_str(accept) {
            h.insert(header::ACCEPT, v);
        }
        answer(cfg, &Method::GET, path, wants_page(&h)).await
    }

    #[tokio::test]
    async fn app_static_and_no_way_out() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let st = dir.path().join("static");
        std::fs::create_dir_all(st.join("scripts")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.path().join("index.html"), "<html>app</html>")
            .unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(st.join("scripts/a.js"), "x()").unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.path().join("secret"), "no").unwrap_or_else(|e| panic!("{e}"));
        let cfg = AppConfig {
            app: Some(dir.path().join("index.html")),
            app_path: "/app".into(),
            static_dir: Some(st.clone()),
            static_path: "/static".into(),
        };
        let page = "text/html,application/xhtml+xml,*/*;q=0.8";
        for path in ["/", "/login", "/app", "/app/x/y"] {
            let r = get(&cfg, path, page).await;
            assert_eq!(r.map(|r| r.status()), Some(StatusCode::OK), "{path}");
        }
        // The API's own answers for what is not a page.
        assert!(get(&cfg, "/", "application/json").await.is_none());
        assert!(get(&cfg, "/", "*/*").await.is_none());
        let js = get(&cfg, "/static/scripts/a.js", "*/*").await;
        assert_eq!(
            js.as_ref()
                .and_then(|r| r.headers().get(header::CONTENT_TYPE).cloned()),
            Some(HeaderValue::from_static("text/javascript"))
        );
        for path in [
            "/static/../secret",
            "/static/scripts/../../secret",
            "/static/missing.txt",
            "/static",
        ] {
            let r = get(&cfg, path, "*/*").await;
            assert_eq!(r.map(|r| r.status()), Some(StatusCode::NOT_FOUND), "{path}");
        }
        std::os::unix::fs::symlink(dir.path().join("secret"), st.join("out"))
            .unwrap_or_else(|e| panic!("{e}"));
        let r = get(&cfg, "/static/out", "*/*").await;
        assert_eq!(r.map(|r| r.status()), Some(StatusCode::NOT_FOUND));
    }
}
