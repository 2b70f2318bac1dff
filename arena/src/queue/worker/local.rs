//! The worker inside the server: its [`Queue`] is the database itself, so a lease, a
//! heartbeat or a report is a statement, not an HTTP round trip.

use super::Queue;
use crate::context::Arena;
use crate::queue::Job;
use crate::store::db::games::Stored;
use croupier_tournament::runner::GameRecord;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// The worker inside the server: straight on the database.
pub struct Local {
    /// The arena.
    pub arena: Arc<Arena>,
    /// The worker's name, in its lease names.
    pub name: String,
}

impl Queue for Local {
    /// One job at a time whatever `batch` says: a lease here is a database call, not a
    /// round trip.
    async fn lease(&self, _batch: bool) -> Result<Option<Job>, String> {
        // Listening before claiming, so that a match queued in between wakes the wait.
        let queued = self.arena.queued.notified();
        tokio::pin!(queued);
        queued.as_mut().enable();
        let job = crate::queue::jobs::lease(&self.arena, &self.name, 1)
            .await
            .map_err(|e| e.to_string())?
            .pop();
        if job.is_none() {
            // Woken as soon as the scheduler queues a match.
            tokio::select! {
                _ = queued => {}
                _ = tokio::time::sleep(Duration::from_millis(200)) => {}
            }
        }
        Ok(job)
    }

    async fn heartbeat(&self, job: &Job) -> Result<bool, String> {
        crate::queue::jobs::heartbeat(&self.arena, job.match_id, &job.lease)
            .await
            .map_err(|e| e.to_string())
    }

    async fn report(
        &self,
        job: &Job,
        games: Vec<GameRecord>,
        done: bool,
    ) -> Result<Stored, String> {
        let info = crate::queue::MatchInfo::of_job(job);
        crate::queue::jobs::accept(&self.arena, &info, &job.lease, &games, done)
            .await
            .map_err(|e| e.to_string())
    }

    async fn release(&self, job: &Job) {
        let _ = self.arena.db.release(job.match_id, &job.lease).await;
    }

    async fn agent_path(&self, sha256: &str) -> Result<PathBuf, String> {
        Ok(self.arena.agent_path(sha256))
    }
}
