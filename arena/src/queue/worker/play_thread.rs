//! The one thread that plays a worker loop's matches: a leaf that knows nothing of jobs or
//! queues, only how to run a closure on a long-lived thread and hand back its result (a
//! panic becomes a message, never the thread's end).

/// A job for [`PlayThread`].
type PlayJob = Box<dyn FnOnce() + Send>;

/// The one thread that plays every match of a worker loop, for as long as the loop runs.
///
/// Matches used to run on `spawn_blocking`, which hands each to whichever of tokio's blocking
/// threads is free; the reports' HTTP calls use that pool too, so consecutive matches moved
/// between half a dozen threads, each with its own cold allocator heap and caches, and every
/// one of them woke several hundred times a second. Measured with a worker alone on a core
/// (`scripts/bench-arena.sh`, part 6): a tenth more CPU per game than `croupier match`, most
/// of it in the kernel switching threads.
pub(super) struct PlayThread {
    jobs: std::sync::mpsc::Sender<PlayJob>,
}

impl PlayThread {
    pub(super) fn start(name: &str) -> std::io::Result<PlayThread> {
        let (jobs, rx) = std::sync::mpsc::channel::<PlayJob>();
        std::thread::Builder::new()
            .name(format!("play-{name}"))
            // Ends when the loop drops its sender.
            .spawn(move || {
                while let Ok(job) = rx.recv() {
                    job();
                }
            })?;
        Ok(PlayThread { jobs })
    }

    /// Queues `f` on the play thread, behind the jobs already there; its outcome comes on
    /// the receiver, `Err` (with why) if it panicked or the thread is gone.
    pub(super) fn submit<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Result<Pending<T>, String> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let job: PlayJob = Box::new(move || {
            // A panic is a platform failure of this match only; the thread plays on.
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
                .map_err(|p| panic_text(p.as_ref()));
            let _ = tx.send(r);
        });
        self.jobs
            .send(job)
            .map_err(|_| "the play thread is gone".to_string())?;
        Ok(rx)
    }
}

/// What the play thread will say about a job it was given.
pub(super) type Pending<T> = tokio::sync::oneshot::Receiver<Result<T, String>>;

pub(super) fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    let what = p
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into());
    format!("the match panicked: {what}")
}
