//! Everything a handler can fail with, turned into a response in one place (axum's
//! examples): JSON `{"error": ...}` for the API, a small page for the pages. A 500's detail
//! is logged, never shown: it may name files or queries.

use axum::Json;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use maud::{DOCTYPE, html};

/// Everything a handler can fail with, and the status it becomes.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// No token, or a token that is not valid: 401.
    #[error("{0}")]
    Unauthorized(String),
    /// A valid token without the right: 403.
    #[error("{0}")]
    Forbidden(String),
    /// 404.
    #[error("{0}")]
    NotFound(String),
    /// 400.
    #[error("{0}")]
    BadRequest(String),
    /// 409: the name is taken, or the arena is frozen.
    #[error("{0}")]
    Conflict(String),
    /// 408: the client stopped sending.
    #[error("{0}")]
    Timeout(String),
    /// 413.
    #[error("the upload is larger than this arena's cap of {0} bytes")]
    TooLarge(u64),
    /// 415: a body in an encoding the route does not take.
    #[error("{0}")]
    Unsupported(String),
    /// 429, with Retry-After in seconds.
    #[error("{message}")]
    TooMany {
        /// What limit was hit.
        message: String,
        /// Seconds until a request would be accepted.
        retry_after: u64,
    },
    /// 500: the server's fault; the message is logged, the client gets a short one.
    #[error("{0}")]
    Internal(String),
}

/// Whether reading a body failed because the client stopped sending: the server's idle
/// timeout on upload bodies (`uploads.idle_seconds`) ended it.
pub fn stalled(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(e);
    while let Some(c) = cause {
        if c.is::<tower_http::timeout::TimeoutError>() {
            return true;
        }
        cause = c.source();
    }
    false
}

/// The 408 of an upload that stalled.
pub fn stalled_upload(idle_seconds: u32) -> AppError {
    AppError::Timeout(format!(
        "the upload sent nothing for {idle_seconds} s; send it again"
    ))
}

impl From<crate::db::DbError> for AppError {
    fn from(e: crate::db::DbError) -> AppError {
        AppError::Internal(e.to_string())
    }
}

impl From<crate::jobs::JobError> for AppError {
    fn from(e: crate::jobs::JobError) -> AppError {
        match e {
            crate::jobs::JobError::Bad(m) => AppError::BadRequest(m),
            e => AppError::Internal(e.to_string()),
        }
    }
}

impl AppError {
    /// The status code.
    pub fn status(&self) -> StatusCode {
        match self {
            AppError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            AppError::Forbidden(_) => StatusCode::FORBIDDEN,
            AppError::NotFound(_) => StatusCode::NOT_FOUND,
            AppError::BadRequest(_) => StatusCode::BAD_REQUEST,
            AppError::Conflict(_) => StatusCode::CONFLICT,
            AppError::Timeout(_) => StatusCode::REQUEST_TIMEOUT,
            AppError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            AppError::Unsupported(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            AppError::TooMany { .. } => StatusCode::TOO_MANY_REQUESTS,
            AppError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The message a client is shown (internal details stay in the server's log).
    pub fn public_message(&self) -> String {
        match self {
            AppError::Internal(m) => {
                eprintln!("arena: internal error: {m}");
                "internal error (logged on the server)".into()
            }
            e => e.to_string(),
        }
    }

    fn headers(&self) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let AppError::TooMany { retry_after, .. } = self
            && let Ok(v) = HeaderValue::from_str(&retry_after.to_string())
        {
            h.insert(header::RETRY_AFTER, v);
        }
        if let AppError::Unauthorized(_) = self {
            h.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        h
    }
}

/// JSON errors, for the API: `{"error": "..."}`.
impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let body = Json(serde_json::json!({ "error": self.public_message() }));
        (self.status(), self.headers(), body).into_response()
    }
}

/// An [`AppError`] on a page: the same status, as a page.
#[derive(Debug)]
pub struct PageError(pub AppError);

impl<E: Into<AppError>> From<E> for PageError {
    fn from(e: E) -> PageError {
        PageError(e.into())
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let status = self.0.status();
        let page = error_page(status, &self.0.public_message());
        (status, self.0.headers(), page).into_response()
    }
}

/// An error as a small page.
pub fn error_page(status: StatusCode, message: &str) -> Response {
    let m = html! {
        (DOCTYPE)
        html lang="en" {
            head { meta charset="utf-8"; title { (status.as_u16()) } link rel="stylesheet" href="/static/style.css"; }
            body { main {
                h1 { (status.as_u16()) " " (status.canonical_reason().unwrap_or("")) }
                p.error { (message) }
                p { a href="/" { "leaderboard" } }
            } }
        }
    };
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        m.into_string(),
    )
        .into_response()
}
