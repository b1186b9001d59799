//! The streamable HTTP transport (`mapgrep serve --http ADDR`): rmcp's streamable HTTP
//! service at `/mcp`, behind [`http_guard`](super::http_guard) (Origin, bearer token), with
//! bounded [`Sessions`]. Every session is served by its own [`MapgrepServer`] over the one
//! workspace of the process: one index, one watcher, one set of caches.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

use super::MapgrepServer;
use super::http_guard::{Guard, guard};
use super::sessions::Sessions;

/// The path of the MCP endpoint.
pub const ENDPOINT: &str = "/mcp";

/// The environment variable that holds the bearer token (never a flag: a flag shows in
/// `ps` to every user of the machine).
pub const TOKEN_VAR: &str = "MAPGREP_HTTP_TOKEN";

/// Sessions held at once by default.
pub const DEFAULT_MAX_SESSIONS: usize = 32;

/// Seconds a session may go without a message before it is closed, by default.
pub const DEFAULT_IDLE_SECS: u64 = 1800;

/// How a server listens.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// The address and port to listen on.
    pub addr: SocketAddr,
    /// The token clients must send (from [`TOKEN_VAR`]).
    pub token: Option<String>,
    /// The most sessions held at once.
    pub max_sessions: usize,
    /// How long a session may stay without a message.
    pub idle: Duration,
}

impl HttpOptions {
    /// What must not start: an empty token, or an address other machines can reach without a
    /// token. The error says what to do instead.
    pub fn check(&self) -> Result<(), String> {
        if self.token.as_deref().is_some_and(|t| t.trim().is_empty()) {
            return Err(format!(
                "{TOKEN_VAR} is set but empty: set it to a long random secret (for example \
                 the output of `openssl rand -hex 32`), or unset it"
            ));
        }
        if self.token.is_none() && !self.loopback() {
            return Err(format!(
                "refusing to serve HTTP on {} without a token: that address is reachable from \
                 other machines. Listen on a loopback address (127.0.0.1:PORT or [::1]:PORT), or \
                 set {TOKEN_VAR} in the server's environment; clients then send \
                 `Authorization: Bearer <token>`",
                self.addr
            ));
        }
        Ok(())
    }

    /// Whether the address is a loopback one (127.0.0.0/8, ::1).
    pub fn loopback(&self) -> bool {
        self.addr.ip().to_canonical().is_loopback()
    }
}

/// Listens on `opts.addr` ([`HttpOptions::check`] first) and tells on stderr where; then
/// serves sessions of `server` until the returned future is dropped or fails.
pub async fn serve_http(server: MapgrepServer, opts: HttpOptions) -> anyhow::Result<()> {
    opts.check().map_err(anyhow::Error::msg)?;
    let listener = tokio::net::TcpListener::bind(opts.addr)
        .await
        .with_context(|| format!("listening on {}", opts.addr))?;
    let local = listener.local_addr().context("reading the bound address")?;
    super::log(format_args!(
        "serving MCP over streamable HTTP at http://{local}{ENDPOINT} ({}; sessions: at most {} \
         at once, each closed after {} s without a message)",
        if opts.token.is_some() {
            "clients must send the token"
        } else {
            "loopback only, no token"
        },
        opts.max_sessions,
        opts.idle.as_secs()
    ));
    axum::serve(listener, router(server, &opts))
        .await
        .context("serving HTTP")
}

/// The HTTP service: the guard, then rmcp's service at [`ENDPOINT`].
fn router(server: MapgrepServer, opts: &HttpOptions) -> axum::Router {
    let mut config = StreamableHttpServerConfig::default();
    if opts.loopback() {
        // rmcp's check of the Host header (DNS rebinding): the loopback names, and the
        // address listened on.
        let mut hosts = config.allowed_hosts.clone();
        hosts.push(opts.addr.ip().to_string());
        config = config.with_allowed_hosts(hosts);
    } else {
        // Reached by the machine's names, which are not known here; the token guards it.
        config = config.disable_allowed_hosts();
    }
    let sessions = Arc::new(Sessions::new(opts.max_sessions, opts.idle));
    let service = StreamableHttpService::new(move || Ok(server.session()), sessions, config);
    let g = Guard {
        token: opts.token.as_ref().map(|t| t.trim().as_bytes().to_vec()),
        full: format!(
            "Service Unavailable: this server holds the most sessions it may (serve \
             --max-sessions {}). A session ends when its client closes it (DELETE {ENDPOINT}) or \
             after {} s without a message (serve --session-idle-timeout); try again then",
            opts.max_sessions,
            opts.idle.as_secs()
        ),
    };
    axum::Router::new()
        .route_service(ENDPOINT, service)
        .layer(axum::middleware::from_fn_with_state(Arc::new(g), guard))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(addr: &str, token: Option<&str>) -> HttpOptions {
        HttpOptions {
            addr: addr.parse().unwrap(),
            token: token.map(String::from),
            max_sessions: DEFAULT_MAX_SESSIONS,
            idle: Duration::from_secs(DEFAULT_IDLE_SECS),
        }
    }

    #[test]
    fn loopback_serves_without_a_token_and_other_addresses_need_one() {
        for a in [
            "127.0.0.1:0",
            "127.0.0.2:8080",
            "[::1]:0",
            "[::ffff:127.0.0.1]:0",
        ] {
            assert_eq!(opts(a, None).check(), Ok(()), "{a}");
        }
        for a in ["0.0.0.0:8080", "[::]:0", "192.168.1.2:0", "10.0.0.1:0"] {
            let e = opts(a, None).check().unwrap_err();
            assert!(e.contains("refusing") && e.contains(TOKEN_VAR), "{a}: {e}");
            assert_eq!(opts(a, Some("secret")).check(), Ok(()), "{a}");
        }
        let e = opts("127.0.0.1:0", Some(" ")).check().unwrap_err();
        assert!(e.contains("empty"), "{e}");
    }
}
