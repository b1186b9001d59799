//! The searches running in a workspace: background work (builds, upkeep, records) yields
//! the cores to them and waits for a quiet moment.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How many searches run, and when the last one ended.
#[derive(Default)]
pub(super) struct Searches {
    pub(super) running: Arc<AtomicUsize>,
    /// Milliseconds since [`epoch`].
    last_ended: Arc<AtomicU64>,
}

/// Counts a search as running until dropped: index builds wait for it.
pub struct Searching(Arc<AtomicUsize>, Arc<AtomicU64>);

/// The process's start, for [`Searches::last_ended`].
fn epoch() -> Instant {
    static EPOCH: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

impl Searches {
    /// How long ago the last search ended (zero while one runs; since the process's start
    /// when none ran).
    pub(super) fn quiet_for(&self) -> Duration {
        if self.running.load(Ordering::Relaxed) > 0 {
            return Duration::ZERO;
        }
        let last = self.last_ended.load(Ordering::Relaxed);
        let now = epoch().elapsed().as_millis() as u64;
        Duration::from_millis(now.saturating_sub(last).max(u64::from(last == 0) * now))
    }

    /// A search counted as running while the guard lives.
    pub(super) fn start(&self) -> Searching {
        epoch();
        self.running.fetch_add(1, Ordering::Relaxed);
        Searching(Arc::clone(&self.running), Arc::clone(&self.last_ended))
    }
}

impl Drop for Searching {
    fn drop(&mut self) {
        self.1.store(
            epoch().elapsed().as_millis().max(1) as u64,
            Ordering::Relaxed,
        );
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}
