//! The HTTP transport's sessions, bounded: rmcp's in-memory session manager with a most
//! sessions held at once (a new one beyond it is refused) and an idle time after which a
//! session is closed. A session that ends (closed by its client, idle too long, or its
//! server gone) leaves the map, and with it the session's service ([`super::MapgrepServer`]
//! keeps a client name per session; the workspace is shared).

use std::time::Duration;

use futures_core::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, SessionConfig,
};
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionId};
use rmcp::transport::streamable_http_server::{RestoreOutcome, SessionManager};

/// The words that mark a refusal for being full: rmcp answers a failed session creation
/// with status 500 and the error's text, which [`super::http_guard`] finds by these words
/// and answers with 503 instead.
pub const FULL: &str = "mapgrep-sessions-full";

/// rmcp's [`LocalSessionManager`] with a bound on the sessions it holds.
pub struct Sessions {
    inner: LocalSessionManager,
    max: usize,
    /// Held while a session is created, so that two creations never both see room for one.
    creating: tokio::sync::Mutex<()>,
}

/// Why a session operation failed.
#[derive(Debug, thiserror::Error)]
pub enum SessionsError {
    #[error("{FULL}: this server holds the most sessions it may ({0})")]
    Full(usize),
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
}

impl Sessions {
    /// At most `max` sessions at once (0 is taken as 1), each closed after `idle` without a
    /// message.
    pub fn new(max: usize, idle: Duration) -> Sessions {
        let mut config = SessionConfig::default();
        config.keep_alive = Some(idle);
        let mut inner = LocalSessionManager::default();
        inner.session_config = config;
        Sessions {
            inner,
            max: max.max(1),
            creating: tokio::sync::Mutex::new(()),
        }
    }

    /// The sessions held now.
    pub async fn count(&self) -> usize {
        self.inner.sessions.read().await.len()
    }
}

impl SessionManager for Sessions {
    type Error = SessionsError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let _one_at_a_time = self.creating.lock().await;
        if self.count().await >= self.max {
            return Err(SessionsError::Full(self.max));
        }
        Ok(self.inner.create_session().await?)
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_stream(id, message).await?)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.resume(id, last_event_id).await?)
    }

    /// Sessions live in this process only: one that is gone is not brought back (its client
    /// gets 404 and initializes again, as the MCP specification says).
    async fn restore_session(
        &self,
        _id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        Ok(RestoreOutcome::NotSupported)
    }
}
