//! A W3C WebDriver client for browser tests: Debian's `chromedriver`
//! started on a free port (stopped on drop), driving headless Chromium
//! with the flags this machine's closed network needs. Only what the
//! tests use: open a page, find by CSS, click, type, read text, run a
//! script, take a screenshot (PNG bytes).

use crate::daemon::free_port;
use crate::http::request;
use base64::Engine;
use serde_json::{json, Value as Json};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The key W3C names an element reference by.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// A browser session and its driver.
pub struct Browser {
    driver: Child,
    addr: SocketAddr,
    session: String,
    _profile: tempfile::TempDir,
}

impl Browser {
    /// Start `chromedriver` and a headless Chromium session.
    pub fn start() -> Result<Browser, String> {
        let port = free_port();
        let mut driver = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("chromedriver: {e} (apt install chromium-driver)"))?;
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(addr).is_err() {
            if Instant::now() > deadline {
                let _ = driver.kill();
                return Err("chromedriver did not listen".into());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let profile = tempfile::tempdir().map_err(|e| e.to_string())?;
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": "/usr/bin/chromium",
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync",
                    "--window-size=1400,1000",
                    format!("--user-data-dir={}", profile.path().display()),
                ],
            },
        }}});
        let mut b = Browser {
            driver,
            addr,
            session: String::new(),
            _profile: profile,
        };
        let v = b.call("POST", "/session", Some(caps))?;
        b.session = v["sessionId"]
            .as_str()
            .ok_or_else(|| format!("no session: {v}"))?
            .to_string();
        Ok(b)
    }

    /// One WebDriver command; its `value`.
    fn call(&self, method: &str, path: &str, body: Option<Json>) -> Result<Json, String> {
        let bytes = body.map(|b| b.to_string().into_bytes()).unwrap_or_default();
        let headers = [("Content-Type", "application/json")];
        let a = request(self.addr, method, path, &headers, &bytes).map_err(|e| e.to_string())?;
        let v = a.json();
        if a.status != 200 {
            return Err(format!("{method} {path}: {} {}", a.status, a.body));
        }
        Ok(v["value"].clone())
    }

    fn on(&self, rest: &str) -> String {
        format!("/session/{}{rest}", self.session)
    }

    pub fn goto(&self, url: &str) -> Result<(), String> {
        self.call("POST", &self.on("/url"), Some(json!({ "url": url })))
            .map(|_| ())
    }

    pub fn url(&self) -> Result<String, String> {
        Ok(self
            .call("GET", &self.on("/url"), None)?
            .as_str()
            .unwrap_or_default()
            .to_string())
    }

    /// The first element `css` selects now.
    pub fn find(&self, css: &str) -> Result<String, String> {
        let v = self.call(
            "POST",
            &self.on("/element"),
            Some(json!({"using": "css selector", "value": css})),
        )?;
        v[ELEMENT]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("{css}: no element"))
    }

    /// [`Browser::find`], retried until `within` has passed.
    pub fn wait_for(&self, css: &str, within: Duration) -> Result<String, String> {
        let deadline = Instant::now() + within;
        loop {
            match self.find(css) {
                Ok(e) => return Ok(e),
                Err(e) if Instant::now() > deadline => return Err(e),
                Err(_) => std::thread::sleep(Duration::from_millis(200)),
            }
        }
    }

    /// Wait until `css`'s text contains `text`; the text.
    pub fn wait_text(&self, css: &str, text: &str, within: Duration) -> Result<String, String> {
        let deadline = Instant::now() + within;
        loop {
            let got = self.find(css).and_then(|e| self.text(&e));
            match got {
                Ok(t) if t.contains(text) => return Ok(t),
                other if Instant::now() > deadline => {
                    return Err(format!("{css}: no {text:?} in {other:?}"))
                }
                _ => std::thread::sleep(Duration::from_millis(200)),
            }
        }
    }

    pub fn click(&self, element: &str) -> Result<(), String> {
        self.call(
            "POST",
            &self.on(&format!("/element/{element}/click")),
            Some(json!({})),
        )
        .map(|_| ())
    }

    pub fn type_into(&self, element: &str, text: &str) -> Result<(), String> {
        self.call(
            "POST",
            &self.on(&format!("/element/{element}/value")),
            Some(json!({ "text": text })),
        )
        .map(|_| ())
    }

    pub fn text(&self, element: &str) -> Result<String, String> {
        Ok(self
            .call("GET", &self.on(&format!("/element/{element}/text")), None)?
            .as_str()
            .unwrap_or_default()
            .to_string())
    }

    /// Run `script` in the page; what it returns.
    pub fn script(&self, script: &str) -> Result<Json, String> {
        self.call(
            "POST",
            &self.on("/execute/sync"),
            Some(json!({"script": script, "args": []})),
        )
    }

    /// The page as a PNG.
    pub fn screenshot(&self) -> Result<Vec<u8>, String> {
        let v = self.call("GET", &self.on("/screenshot"), None)?;
        base64::engine::general_purpose::STANDARD
            .decode(v.as_str().unwrap_or_default())
            .map_err(|e| e.to_string())
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = self.call("DELETE", &self.on(""), None);
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}
