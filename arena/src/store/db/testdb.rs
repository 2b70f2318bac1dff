//! A fresh SQLite arena database for the tables' tests, in a directory of its own.

use super::Db;
use sqlx::sqlite::SqlitePool;

/// A fresh arena directory under the system's temp dir, removed on drop.
pub struct Dir(std::path::PathBuf);
impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A new SQLite arena database in its own directory, with its two pools.
pub struct Opened {
    pub db: Db,
    pub write: SqlitePool,
    pub read: SqlitePool,
    // Last, so that the pools are dropped before the directory goes.
    _dir: Dir,
}

/// Opens `croupier-db-{name}-{pid}` under the temp dir, emptied first.
pub async fn open(name: &str) -> Opened {
    let d = std::env::temp_dir().join(format!("croupier-db-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    let dir = Dir(d);
    let db = Db::open(&dir.0, None).await.expect("open");
    let Db::Sqlite { pool, read } = db.clone() else {
        panic!("SQLite by default")
    };
    Opened {
        db,
        write: pool,
        read,
        _dir: dir,
    }
}
