//! `croupier arena export DIR --out games.jsonl`: every stored game as match logs, for
//! research after the course. `croupier replay games.jsonl --match N --game I` shows one.

use super::common::Place;
use anyhow::{Context, Result, bail};
use croupier_arena::context::Arena;
use std::io::Write;
use std::path::Path;

/// Writes the arena's games to `out` (a new file, written beside it and renamed, so a
/// failure leaves no half log) and says how many.
pub async fn export(at: &Place, out: &Path, logs: bool) -> Result<()> {
    let (dir, database) = (at.dir.as_path(), at.database.as_deref());
    if out.exists() {
        bail!("{}: already exists; choose another --out", out.display());
    }
    let arena = Arena::open(dir, database).await?;
    let tmp = out.with_extension("exporting");
    let write = async {
        let file = std::fs::File::create(&tmp)
            .with_context(|| format!("{}: cannot create", tmp.display()))?;
        let mut w = std::io::BufWriter::new(file);
        let done = croupier_arena::web::export::export(&arena, &mut w, logs)
            .await
            .with_context(|| format!("{}: exporting the games", dir.display()))?;
        w.flush()?;
        w.into_inner()
            .map_err(|e| e.into_error())?
            .sync_all()
            .with_context(|| format!("{}: cannot write", tmp.display()))?;
        std::fs::rename(&tmp, out).with_context(|| format!("{}: cannot write", out.display()))?;
        anyhow::Ok(done)
    };
    let done = write.await;
    arena.db.close().await;
    let done = match done {
        Ok(d) => d,
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
    };
    println!(
        "{}: {} games of {} matches{}{}",
        out.display(),
        done.games,
        done.matches,
        if logs { ", with the agents' logs" } else { "" },
        if done.pruned > 0 {
            format!(
                "; {} games left out (the storage budget dropped their replays)",
                done.pruned
            )
        } else {
            String::new()
        }
    );
    Ok(())
}
