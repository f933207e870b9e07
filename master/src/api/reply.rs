//! What `brine-api` sends back, as salt-api sends it: data as JSON or
//! YAML by the request's `Accept` (`application/x-yaml`, `text/yaml`;
//! JSON otherwise), and errors as CherryPy's HTML error page with the
//! status and Salt's message (recorded from salt-api 3007.8:
//! `tests/recorded/api/api.salt.json`).

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use brine_core::Value;

/// An error a request ends with: its status and Salt's words.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }

    /// No or a bad token.
    pub fn no_permission() -> ApiError {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            "No permission -- see authorization schemes",
        )
    }

    /// A login that did not authenticate.
    pub fn bad_login() -> ApiError {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            "Could not authenticate using provided credentials",
        )
    }

    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }
}

/// CherryPy's error page around `message` (`&`, `<`, `>` escaped, as
/// CherryPy escapes them; quotes stay).
pub fn error_page(status: StatusCode, message: &str) -> String {
    let title = format!(
        "{} {}",
        status.as_u16(),
        status.canonical_reason().unwrap_or("Error")
    );
    let esc = message
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    format!(
        "<!DOCTYPE html PUBLIC\n\"-//W3C//DTD XHTML 1.0 Transitional//EN\"\n\
         \"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd\">\n<html>\n<head>\n    \
         <meta http-equiv=\"Content-Type\" content=\"text/html; charset=utf-8\"></meta>\n    \
         <title>{title}</title>\n    <style type=\"text/css\">\n    #powered_by {{\n        \
         margin-top: 20px;\n        border-top: 2px solid black;\n        font-style: italic;\n    \
         }}\n\n    #traceback {{\n        color: red;\n    }}\n    </style>\n</head>\n    \
         <body>\n        <h2>{title}</h2>\n        <p>{esc}</p>\n        \
         <pre id=\"traceback\"></pre>\n    <div id=\"powered_by\">\n      <span>\n        \
         Powered by brine-api {}\n      </span>\n    </div>\n    </body>\n</html>\n",
        env!("CARGO_PKG_VERSION")
    )
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        // An error inside a call is data in salt-api, not CherryPy's page:
        // `{return: "An unexpected error occurred", status: 500}`.
        if self.status == StatusCode::INTERNAL_SERVER_ERROR {
            let mut m = brine_core::Map::default();
            m.insert("return".into(), Value::Str(self.message));
            m.insert("status".into(), Value::Int(500));
            return data(&HeaderMap::new(), self.status, &Value::Map(m));
        }
        let mut r = (self.status, error_page(self.status, &self.message)).into_response();
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/html;charset=utf-8"),
        );
        r
    }
}

/// Whether the client asked for YAML.
pub fn wants_yaml(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("application/x-yaml") || a.contains("text/yaml"))
}

/// `data` in the format the request asked for, with `status`.
pub fn data(headers: &HeaderMap, status: StatusCode, data: &Value) -> Response {
    let (body, ctype) = if wants_yaml(headers) {
        (brine_core::yaml::dump(data), "application/x-yaml")
    } else {
        (
            serde_json::to_string(&data.to_json()).unwrap_or_else(|_| "null".into()),
            "application/json",
        )
    };
    let mut r = (status, body).into_response();
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(ctype));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_page_carries_the_status_and_escaped_message() {
        let page = error_page(StatusCode::UNAUTHORIZED, "a <b> & \"c\"");
        assert!(page.contains("<title>401 Unauthorized</title>"));
        assert!(page.contains("<h2>401 Unauthorized</h2>"));
        assert!(page.contains("<p>a &lt;b&gt; &amp; \"c\"</p>"));
    }
}
