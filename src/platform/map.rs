//! System calls that need `unsafe`: the memory map, the SIGBUS guard that keeps a
//! truncated mapping from killing the process (Unix), and glibc's allocator tunables that
//! hand freed heap back to the system. The crate's only `unsafe` code (the other system calls
//! go through safe bindings: rustix, std, cap-std).
//!
//! Windows needs no guard: it refuses to truncate a file while a view of it is mapped
//! (`ERROR_USER_MAPPED_FILE`), so a mapping there never loses its pages; the identity check
//! of [`Mapping::faulted`] still sees a rewrite in place.

use std::fs::File;
use std::io;

use std::sync::atomic::Ordering;
#[cfg(unix)]
use std::sync::atomic::{AtomicBool, AtomicUsize};
#[cfg(unix)]
use std::sync::{Once, OnceLock};

use memmap2::Mmap;

use super::{FileId, stamp};

#[cfg(unix)]
/// How many mappings may be alive at once; beyond that files are read instead.
const SLOTS: usize = 1024;

#[cfg(unix)]
/// One live mapping's address range, and whether a truncation hit it.
struct Slot {
    start: AtomicUsize,
    end: AtomicUsize,
    faulted: AtomicBool,
}

#[cfg(unix)]
#[allow(clippy::declare_interior_mutable_const)]
const EMPTY: Slot = Slot {
    start: AtomicUsize::new(0),
    end: AtomicUsize::new(0),
    faulted: AtomicBool::new(false),
};

#[cfg(unix)]
/// The live mappings, read by the SIGBUS handler (atomics only: async-signal-safe).
static MAPPINGS: [Slot; SLOTS] = [EMPTY; SLOTS];
#[cfg(unix)]
static PAGE: AtomicUsize = AtomicUsize::new(4096);
#[cfg(unix)]
static INSTALL: Once = Once::new();
#[cfg(unix)]
/// The SIGBUS disposition before ours, to hand faults that are not ours to: set once, before
/// the handler is installed; the handler only reads it (an atomic load, async-signal-safe).
static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();

/// A read-only file mapping registered with the SIGBUS guard.
///
/// If the file is truncated while mapped, reading a page past its new end raises SIGBUS.
/// The guard's handler checks that the faulting address lies in a registered mapping,
/// maps an anonymous zero page over that page (so the read retries and sees zeros), marks
/// the mapping as faulted and returns; [`Mapping::faulted`] tells the reader to discard
/// what it computed. A fault anywhere else goes to the previous handler (or the default
/// action), as if the guard were not there.
pub struct Mapping {
    // Field order matters: the map is unmapped before its slot is released.
    map: Mmap,
    #[cfg(unix)]
    slot: SlotGuard,
    /// The mapped file and its identity when mapped, to see whether it changed.
    file: File,
    id: FileId,
    /// When [`Mapping::cut_or_rewritten`] last found the identity unchanged (see
    /// [`since_start`]; 0: never).
    intact_at: std::sync::atomic::AtomicU64,
}

/// Nanoseconds since the first call in this process (never 0 after it).
fn since_start() -> u64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    let start = *START.get_or_init(std::time::Instant::now);
    start.elapsed().as_nanos() as u64 + 1
}

/// How long an identity found unchanged by [`Mapping::cut_or_rewritten`] is taken as
/// unchanged without a new look.
const IMMUTABLE_LOOK: std::time::Duration = std::time::Duration::from_millis(20);

#[cfg(unix)]
struct SlotGuard(usize);

#[cfg(unix)]
impl Drop for SlotGuard {
    fn drop(&mut self) {
        let slot = &MAPPINGS[self.0];
        slot.end.store(0, Ordering::Release);
        slot.faulted.store(false, Ordering::Release);
        slot.start.store(0, Ordering::Release);
    }
}

impl Mapping {
    /// Whether the file changed under this mapping since it was made: a page past a new
    /// end was read (caught by the guard), or the file's identity (size, modification and
    /// change time) is no longer the one it had when mapped — a shrink that did not fault
    /// shows up as zeros in the tail of the last page.
    pub fn faulted(&self) -> bool {
        self.changed_unless(|now, then| now == then)
    }

    /// Whether the bytes of a file that is only ever replaced, never rewritten, changed
    /// under this mapping: as [`Mapping::faulted`] but blind to the change time, which a
    /// link or an unlink of the file moves too (a reader of the index's segments keeps
    /// those the writer unlinked mapped until it has moved on).
    ///
    /// The identity is looked at (an `fstat`) at most once per 20 ms per mapping, the fault
    /// flag every time: the index reads a record of each of thousands of files per query,
    /// and one `fstat` per record was a tenth of a restarted server's CPU. The bytes read in
    /// between are vouched for by the index's page checksums; a rewrite is still seen
    /// within 20 ms.
    pub fn cut_or_rewritten(&self) -> bool {
        #[cfg(unix)]
        if MAPPINGS[self.slot.0].faulted.load(Ordering::Acquire) {
            return true;
        }
        let now = since_start();
        let at = self.intact_at.load(Ordering::Relaxed);
        if at != 0 && now.saturating_sub(at) < IMMUTABLE_LOOK.as_nanos() as u64 {
            return false;
        }
        let changed =
            self.changed_unless(|now, then| (now.len, now.mtime) == (then.len, then.mtime));
        if !changed {
            self.intact_at.store(now, Ordering::Relaxed);
        }
        changed
    }

    /// A fault caught by the guard, or an identity now that `same` does not take for the
    /// one the mapping was made with.
    fn changed_unless(&self, same: impl Fn(&FileId, &FileId) -> bool) -> bool {
        #[cfg(unix)]
        if MAPPINGS[self.slot.0].faulted.load(Ordering::Acquire) {
            return true;
        }
        self.file
            .metadata()
            .map_or(true, |md| !same(&stamp(&md), &self.id))
    }

    /// Populates the page tables of the whole mapping in one call, before a pass that reads
    /// all of it (Linux 5.14 and later; nothing elsewhere).
    pub fn populate(&self) {
        #[cfg(target_os = "linux")]
        let _ = self.map.advise(memmap2::Advice::PopulateRead);
    }
}

impl std::ops::Deref for Mapping {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.map
    }
}

#[cfg(unix)]
extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo for a handler installed with SA_SIGINFO.
    let addr = unsafe { (*info).si_addr() } as usize;
    let page = PAGE.load(Ordering::Relaxed);
    for slot in &MAPPINGS {
        let start = slot.start.load(Ordering::Acquire);
        if start == 0 || addr < start || addr >= slot.end.load(Ordering::Acquire) {
            continue;
        }
        let at = addr & !(page - 1);
        // SAFETY: `at` is a page inside a live read-only mapping of ours (the slot is
        // released only after the map is unmapped); replacing that page with an anonymous
        // zero page changes what the reader sees, never memory anything else owns. mmap is
        // a plain system call, safe to make in a signal handler.
        let p = unsafe {
            libc::mmap(
                at as *mut libc::c_void,
                page,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        if p != libc::MAP_FAILED {
            slot.faulted.store(true, Ordering::Release);
            return;
        }
    }
    // Not ours: behave as if we were not installed.
    match PREVIOUS.get().copied() {
        Some(prev) if prev.sa_sigaction != libc::SIG_DFL && prev.sa_sigaction != libc::SIG_IGN => {
            if prev.sa_flags & libc::SA_SIGINFO != 0 {
                // SAFETY: a handler installed with SA_SIGINFO has this signature.
                let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                    unsafe { std::mem::transmute(prev.sa_sigaction) };
                f(sig, info, ctx);
            } else {
                // SAFETY: a plain handler takes the signal number.
                let f: extern "C" fn(libc::c_int) =
                    unsafe { std::mem::transmute(prev.sa_sigaction) };
                f(sig);
            }
        }
        _ => {
            // Restore the default action; returning re-runs the access, which now kills
            // the process as a SIGBUS would have.
            // SAFETY: a zeroed sigaction with SIG_DFL is a valid disposition.
            unsafe {
                let mut dfl: libc::sigaction = std::mem::zeroed();
                dfl.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(libc::SIGBUS, &dfl, std::ptr::null_mut());
            }
        }
    }
}

#[cfg(unix)]
/// Installs [`on_sigbus`] once, keeping the disposition it replaces in [`PREVIOUS`].
///
/// Not through a registry crate (signal-hook-registry): a registry runs the previous handler
/// after its actions for every signal, while a fault this guard repaired must not reach a
/// previous handler (which may abort the process); only faults outside our mappings do.
fn install() -> bool {
    static OK: AtomicBool = AtomicBool::new(false);
    INSTALL.call_once(|| {
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        if page > 0 {
            PAGE.store(page as usize, Ordering::Relaxed);
        }
        // SAFETY: a zeroed sigaction is a valid starting value; the handler has the
        // SA_SIGINFO signature; `old` receives the previous disposition, stored before
        // any fault can reach our handler that reads it (Once orders the writes).
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut old) != 0 {
                return;
            }
            if PREVIOUS.set(old).is_err() {
                return;
            }
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = on_sigbus as *const () as usize;
            act.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_NODEFER;
            libc::sigemptyset(&mut act.sa_mask);
            if libc::sigaction(libc::SIGBUS, &act, std::ptr::null_mut()) == 0 {
                OK.store(true, Ordering::Release);
            }
        }
    });
    OK.load(Ordering::Acquire)
}

/// Maps `file` read-only, registered with the SIGBUS guard (see [`Mapping`]). Fails (and
/// the caller reads the file instead) if the guard cannot be installed or every slot is
/// taken.
///
/// # Safety
///
/// This function is safe to call, but it wraps `Mmap::map`, whose contract is that the
/// mapped file must not be modified or truncated while the map is alive: a write shows up
/// in the slice (the bytes are not a snapshot) and a truncation makes access past the new
/// end raise SIGBUS. mapgrep accepts the first (every reader re-checks the file identity
/// and tolerates arbitrary bytes) and turns the second into zeros plus a "changed" flag
/// with the guard; it maps only regular files, for the duration of one call.
pub fn map(file: &File) -> io::Result<Mapping> {
    let file = file.try_clone()?;
    let id = stamp(&file.metadata()?);
    #[cfg(unix)]
    if !install() {
        return Err(io::Error::other("no SIGBUS guard"));
    }
    // SAFETY: `file` is an open regular file (checked by the caller with fstat) and the
    // map is read-only and private to this process; see the function docs for the
    // concurrent-modification contract.
    let map = unsafe { Mmap::map(&file)? };
    #[cfg(unix)]
    let _ = map.advise(memmap2::Advice::Sequential);
    #[cfg(not(unix))]
    return Ok(Mapping {
        map,
        file,
        id,
        intact_at: Default::default(),
    });
    #[cfg(unix)]
    register(map, file, id)
}

/// Claims a slot of the guard for `map` (see [`map`]).
#[cfg(unix)]
fn register(map: Mmap, file: File, id: FileId) -> io::Result<Mapping> {
    let start = map.as_ptr() as usize;
    let end = start + map.len();
    for (i, slot) in MAPPINGS.iter().enumerate() {
        if slot
            .start
            .compare_exchange(0, usize::MAX, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
        {
            // Claimed (start = MAX matches no address); publish the range.
            slot.faulted.store(false, Ordering::Release);
            slot.end.store(end, Ordering::Release);
            slot.start.store(start, Ordering::Release);
            return Ok(Mapping {
                map,
                slot: SlotGuard(i),
                file,
                id,
                intact_at: Default::default(),
            });
        }
    }
    Err(io::Error::other("too many live mappings"))
}

/// Hands the allocator's free memory back to the system. glibc keeps the heap a finished
/// index build (or a large search) freed, and a long-lived server would otherwise hold it
/// for good; other allocators (musl builds use mimalloc, see `main.rs`) return memory on
/// their own.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` takes no pointer and only rearranges glibc's own free lists; it
    // is thread-safe (it locks each arena it trims).
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Has the allocator serve every block of `bytes` or more with its own mapping, returned to
/// the system when freed (glibc otherwise raises that threshold as large blocks are freed,
/// and a long-lived server keeps the heap an index build fragmented).
pub fn map_large_allocations(bytes: usize) {
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = bytes;
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` takes no pointer; it sets one of glibc's tunables, and is called
    // before the server starts its threads.
    unsafe {
        let bytes = bytes.min(i32::MAX as usize / 32) as i32;
        libc::mallopt(libc::M_MMAP_THRESHOLD, bytes);
        // Fixing the threshold also fixes when the heap's free top is handed back, at
        // 128 KiB: every worker's churn would then shrink and regrow the heap. Only past
        // 32 times the threshold (32 MiB), as glibc's own ceiling does.
        libc::mallopt(libc::M_TRIM_THRESHOLD, bytes * 32);
    }
}

/// Asks the processor to bring the bytes at `p` into its caches ahead of their use: a hint,
/// with no effect on what the program computes (nothing on processors without one here). A
/// search's workers read each file's job and path, written by other threads on other cores,
/// as they come to it; fetched one file ahead, that wait overlaps the previous file's work.
#[inline(always)]
pub fn prefetch<T: ?Sized>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and writes nothing, whatever the address (an invalid one
    // is ignored); SSE, which it needs, is part of every x86_64 processor.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
