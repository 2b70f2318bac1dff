//! A throwaway PostgreSQL server for tests: `initdb` in a temp dir, `pg_ctl start` on
//! 127.0.0.1 and a port the OS had free, one database `arena` owned by the superuser
//! `croupier` with trust authentication. Stopped (`pg_ctl stop -m immediate`) and removed
//! when the handle drops, so a failing test leaves no server behind.
//!
//! PostgreSQL refuses to run as root. A test running as root runs the server's programs as
//! an unprivileged account through `runuser` (util-linux): `postgres` (made by the Debian
//! and Ubuntu packages) if it exists, else `nobody`, which every Linux has; the temp dir is
//! handed to that account. The clients (`createdb`, the arena) stay root and connect over TCP.
//!
//! Without PostgreSQL the tests that need it FAIL, naming the install command: a test that
//! did not run must not count as passed. `CROUPIER_REQUIRE_POSTGRES=0` lets them skip, saying
//! so on stderr (as `CROUPIER_REQUIRE_PYTHON` does for the Python agent test).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A running test server.
pub struct Postgres {
    /// `postgres://croupier@127.0.0.1:PORT/arena`
    pub url: String,
    /// The port it listens on.
    pub port: u16,
    bin: PathBuf,
    data: PathBuf,
    run_as: Option<String>,
    /// Removed after the server stops (fields drop after `drop` runs).
    _tmp: tempfile::TempDir,
}

/// The directory holding `initdb` and `pg_ctl`: `$CROUPIER_PG_BIN`, else the newest
/// `/usr/lib/postgresql/<version>/bin` (Debian and Ubuntu keep them off the PATH), else
/// the PATH's.
pub fn bin_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("CROUPIER_PG_BIN") {
        return Some(PathBuf::from(d));
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let v = e.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((v, bin))
        })
        .collect();
    versions.sort();
    if let Some((_, bin)) = versions.pop() {
        return Some(bin);
    }
    std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p).find(|d| d.join("initdb").exists() && d.join("pg_ctl").exists())
    })
}

/// The account the server runs as when the test runs as root.
fn unprivileged_account() -> Option<String> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return None;
    }
    let exists = |name: &str| {
        Command::new("id")
            .arg(name)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    Some(
        if exists("postgres") {
            "postgres"
        } else {
            "nobody"
        }
        .to_string(),
    )
}

/// `id -u NAME` / `id -g NAME`.
fn id_of(flag: &str, name: &str) -> u32 {
    let out = Command::new("id")
        .args([flag, name])
        .output()
        .expect("run id");
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("id {flag} {name}: {}", String::from_utf8_lossy(&out.stderr)))
}

/// A port that was free a moment ago (the server binds it next; a clash is retried).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port on 127.0.0.1")
}

impl Postgres {
    /// Starts a server, or returns `None` when PostgreSQL is not installed and
    /// `CROUPIER_REQUIRE_POSTGRES=0` allows the caller to skip; panics otherwise.
    pub fn start_or_skip(what: &str) -> Option<Postgres> {
        let bin = bin_dir().filter(|b| b.join("initdb").exists());
        let missing = bin.is_none().then(|| {
            "PostgreSQL is not installed (`apt-get install postgresql`, or scripts/setup.sh; or point CROUPIER_PG_BIN at the folder holding initdb and pg_ctl)".to_string()
        });
        if !crate::common::require::or_skip("CROUPIER_REQUIRE_POSTGRES", missing, what) {
            return None;
        }
        let bin = bin?;
        Some(Postgres::start(bin))
    }

    fn start(bin: PathBuf) -> Postgres {
        let tmp = tempfile::Builder::new()
            .prefix("croupier-pg-")
            .tempdir()
            .expect("temp dir");
        let run_as = unprivileged_account();
        if let Some(user) = &run_as {
            std::os::unix::fs::chown(tmp.path(), Some(id_of("-u", user)), Some(id_of("-g", user)))
                .expect("hand the temp dir to the server's account");
        }
        let data = tmp.path().join("data");
        let mut pg = Postgres {
            url: String::new(),
            port: 0,
            bin,
            data,
            run_as,
            _tmp: tmp,
        };
        let out = pg
            .command("initdb")
            .arg("-D")
            .arg(&pg.data)
            .args(["-U", "croupier", "--auth=trust", "--no-sync"])
            .args(["--encoding=UTF8", "--locale=C"])
            .output()
            .expect("run initdb");
        assert!(
            out.status.success(),
            "initdb: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        // Another process may take the port between our probe and the server's bind: try
        // a few.
        let log = pg.dir().join("server.log");
        for attempt in 0..5 {
            let port = free_port();
            // Unix socket in the temp dir (the default /var/run/postgresql may not exist or
            // be writable); TCP on 127.0.0.1 only. fsync off: the data dir is thrown away.
            let opts = format!(
                "-k {} -h 127.0.0.1 -p {port} -c fsync=off -c full_page_writes=off",
                pg.dir().display()
            );
            // `-l`: the server's output goes to a file, not to our pipes, which it would hold
            // open after pg_ctl returns.
            let status = pg
                .command("pg_ctl")
                .arg("-D")
                .arg(&pg.data)
                .arg("-l")
                .arg(&log)
                .args(["-o", &opts, "-w", "-t", "60", "start"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .expect("run pg_ctl start");
            if status.success() {
                pg.port = port;
                break;
            }
            assert!(
                attempt < 4,
                "pg_ctl start failed 5 times; server log:\n{}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        }
        let out = Command::new(pg.bin.join("createdb"))
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &pg.port.to_string(),
                "-U",
                "croupier",
            ])
            .arg("arena")
            .stdin(Stdio::null())
            .output()
            .expect("run createdb");
        assert!(
            out.status.success(),
            "createdb: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        pg.url = format!("postgres://croupier@127.0.0.1:{}/arena", pg.port);
        pg
    }

    /// The temp dir (data dir, socket and log are inside).
    fn dir(&self) -> &Path {
        self._tmp.path()
    }

    /// One of PostgreSQL's programs, as the server's account, run in the temp dir (the
    /// account may not be able to enter the test's working directory).
    fn command(&self, program: &str) -> Command {
        let exe = self.bin.join(program);
        let mut cmd = match &self.run_as {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(exe);
                c
            }
            None => Command::new(exe),
        };
        cmd.current_dir(self.dir()).stdin(Stdio::null());
        cmd
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        if self.port != 0 {
            let _ = self
                .command("pg_ctl")
                .arg("-D")
                .arg(&self.data)
                .args(["-m", "immediate", "-w", "stop"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
    }
}
