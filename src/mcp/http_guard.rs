//! What every HTTP request passes before rmcp sees it: its `Origin` (a browser page of
//! another site is refused with 403, against DNS rebinding, as the MCP specification asks),
//! then the bearer token when the server has one (401 without it or with another). On the
//! way back, a session refused for being full is answered with 503 rather than rmcp's 500.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::Response;

/// What the guard checks a request against.
pub struct Guard {
    /// The token clients must send as `Authorization: Bearer <token>` (`None`: no token).
    pub token: Option<Vec<u8>>,
    /// What a client refused for being full is told (the limits, and how sessions end).
    pub full: String,
}

/// The hosts an `Origin` may name (with any port, over http or https).
const LOCAL_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// The axum middleware: the checks, the request, and the 503 for a refused session.
pub async fn guard(State(g): State<Arc<Guard>>, req: Request, next: Next) -> Response {
    if !origins_allowed(req.headers()) {
        return plain(
            StatusCode::FORBIDDEN,
            "Forbidden: the Origin header names a site other than this machine \
             (localhost, 127.0.0.1, [::1]); mapgrep refuses requests from other sites' pages",
        );
    }
    if let Some(token) = &g.token
        && !authorized(req.headers(), token)
    {
        let mut r = plain(
            StatusCode::UNAUTHORIZED,
            "Unauthorized: send the server's token as `Authorization: Bearer <token>` \
             (the value of MAPGREP_HTTP_TOKEN where the server runs)",
        );
        r.headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        return r;
    }
    let response = next.run(req).await;
    if response.status() != StatusCode::INTERNAL_SERVER_ERROR {
        return response;
    }
    // rmcp's 500 is a short text: read it to tell a refusal for being full from the rest.
    let (parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, 64 << 10)
        .await
        .unwrap_or_default();
    if memchr::memmem::find(&bytes, super::sessions::FULL.as_bytes()).is_some() {
        let mut r = plain(StatusCode::SERVICE_UNAVAILABLE, &g.full);
        r.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("10"));
        return r;
    }
    Response::from_parts(parts, Body::from(bytes))
}

/// A response of status `status` with `text` as its plain-text body.
fn plain(status: StatusCode, text: &str) -> Response {
    let mut r = Response::new(Body::from(format!("{text}\n")));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}

/// Whether every `Origin` header of a request (usually none: MCP clients are not browsers)
/// names this machine: http or https, a host of [`LOCAL_HOSTS`], any port. `Origin: null`
/// (a sandboxed or local-file page) and anything unreadable are refused.
pub fn origins_allowed(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ORIGIN)
        .iter()
        .all(|v| v.to_str().is_ok_and(origin_is_local))
}

/// Whether one origin (`scheme://host[:port]`) is of this machine.
fn origin_is_local(origin: &str) -> bool {
    let Ok(uri) = origin.trim().parse::<Uri>() else {
        return false;
    };
    let scheme = uri.scheme_str().unwrap_or_default();
    let bare = uri.path_and_query().is_none_or(|p| p.as_str() == "/");
    let Some(host) = uri.authority().map(|a| a.host()) else {
        return false;
    };
    bare && (scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https"))
        && LOCAL_HOSTS.iter().any(|h| h.eq_ignore_ascii_case(host))
}

/// Whether the request carries `Authorization: Bearer <token>` (the scheme's case aside).
pub fn authorized(headers: &HeaderMap, token: &[u8]) -> bool {
    let mut given = headers.get_all(header::AUTHORIZATION).iter();
    let (Some(value), None) = (given.next(), given.next()) else {
        return false;
    };
    let value = value.as_bytes();
    let scheme = b"bearer ";
    if value.len() < scheme.len() || !value[..scheme.len()].eq_ignore_ascii_case(scheme) {
        return false;
    }
    same_secret(value[scheme.len()..].trim_ascii(), token)
}

/// Whether `given` equals `secret`, in a time that depends on the secret's length only (not
/// on where the first difference is).
fn same_secret(given: &[u8], secret: &[u8]) -> bool {
    let mut diff = u8::from(given.len() != secret.len());
    for (i, s) in secret.iter().enumerate() {
        diff |= s ^ given.get(i).copied().unwrap_or(!s);
    }
    std::hint::black_box(diff) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(name: header::HeaderName, values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(name.clone(), HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn origins_of_this_machine_pass_and_others_do_not() {
        for ok in [
            "http://localhost:6274",
            "http://127.0.0.1",
            "https://[::1]:8443",
            "HTTP://LOCALHOST:1",
        ] {
            assert!(origins_allowed(&headers(header::ORIGIN, &[ok])), "{ok}");
        }
        assert!(origins_allowed(&HeaderMap::new()), "no Origin");
        for bad in [
            "http://evil.example",
            "http://localhost.evil.example",
            "http://127.0.0.1.nip.io:80",
            "http://127.0.0.2",
            "null",
            "file://",
            "ftp://localhost",
            "http://localhost/path",
            "",
        ] {
            assert!(!origins_allowed(&headers(header::ORIGIN, &[bad])), "{bad}");
        }
        assert!(!origins_allowed(&headers(
            header::ORIGIN,
            &["http://localhost", "http://evil.example"]
        )));
    }

    #[test]
    fn only_the_exact_bearer_token_is_authorized() {
        let t = b"s3cret-token";
        let auth = |v: &[&str]| authorized(&headers(header::AUTHORIZATION, v), t);
        assert!(auth(&["Bearer s3cret-token"]));
        assert!(auth(&["bearer s3cret-token"]));
        assert!(!auth(&[]));
        assert!(!auth(&["Bearer s3cret-toke"]));
        assert!(!auth(&["Bearer s3cret-token2"]));
        assert!(!auth(&["Bearer S3cret-token"]));
        assert!(!auth(&["Basic s3cret-token"]));
        assert!(!auth(&["s3cret-token"]));
        assert!(!auth(&["Bearer "]));
        assert!(!auth(&["Bearer s3cret-token", "Bearer s3cret-token"]));
    }

    #[test]
    fn same_secret_compares_every_byte() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abd", b"abc"));
        assert!(!same_secret(b"ab", b"abc"));
        assert!(!same_secret(b"abcd", b"abc"));
        assert!(!same_secret(b"", b"abc"));
        // A given text shorter than the secret, padded with what differs from each byte.
        assert!(!same_secret(b"ab", b"ab\xff"));
    }
}
