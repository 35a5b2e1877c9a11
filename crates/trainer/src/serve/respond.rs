//! The small helpers every handler answers with.

use std::sync::{Mutex, MutexGuard};

use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

use super::pages;

/// A lock that a panic elsewhere cannot make unusable: the data behind
/// these locks is valid after any single step.
pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

pub(super) fn html(status: StatusCode, body: String) -> Response {
    (status, Html(body)).into_response()
}

pub(super) fn error_html(status: StatusCode, title: &str, message: &str) -> Response {
    html(status, pages::error_page(title, message))
}
