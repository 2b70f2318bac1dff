//! Compiling an agent in a child process (`croupier compile-agent`): the parent's side,
//! which stages the file, runs the child under CPU-time, address-space and wall-clock limits
//! and turns a failure into a one-line refusal naming the limit hit, and the child's side,
//! which validates and compiles and reports what it cost ([`CompileReport`]).
//!
//! Why a child: wasmtime's security model leaves compile-time cost to the embedder, and a
//! file can be built to make Cranelift spend minutes and gigabytes, or to overflow a
//! recursive validator's stack. A child under kernel limits ends such a bomb without the
//! host noticing more than an exit status. The limits' reasons are in [`Limits`]; the two
//! kept here ([`MAX_ARTIFACT_BYTES`], the stderr kept) say theirs beside them.
//!
//! Which program the child is, is the embedder's choice ([`Compiler`]): the `croupier`
//! executable, or the embedding program itself, whose `main` first calls [`serve_if_child`]
//! (`host/examples/embed.rs`).
//!
//! A leaf below [`crate::loader`], which calls [`compile_in_child`] and never the reverse.

use crate::limits::Limits;
use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What one compile in the child process cost, beside the limits it ran under.
#[derive(Clone, Debug, PartialEq)]
pub struct CompileReport {
    /// CPU time of the child, every thread (user and system).
    pub cpu: Duration,
    /// The child's CPU-time limit for this file.
    pub cpu_limit: Duration,
    /// Wall-clock time from starting the child to its exit.
    pub wall: Duration,
    /// The child's wall-clock limit for this file.
    pub wall_limit: Duration,
    /// The child's peak address space, in bytes (what its memory limit bounds); 0 if the
    /// platform does not say.
    pub peak_address_space: u64,
    /// The child's peak resident memory, in bytes; 0 if the platform does not say.
    pub peak_resident: u64,
    /// The child's address-space limit, in bytes.
    pub memory_limit: u64,
    /// Functions whose machine code an earlier compile had kept ([`crate::functions`]): a
    /// compile that reused many cost less than the same file's first compile.
    pub reused_functions: u64,
    /// Functions compiled afresh (0 when the compile kept no functions).
    pub compiled_functions: u64,
}

impl CompileReport {
    /// The largest share of a limit this compile used, as a fraction (1.0 is the limit):
    /// CPU time, wall time or address space.
    pub fn worst_share(&self) -> f64 {
        let cpu = self.cpu.as_secs_f64() / self.cpu_limit.as_secs_f64().max(1e-9);
        let wall = self.wall.as_secs_f64() / self.wall_limit.as_secs_f64().max(1e-9);
        let mem = self.peak_address_space as f64 / (self.memory_limit as f64).max(1.0);
        cpu.max(wall).max(mem)
    }
}

impl std::fmt::Display for CompileReport {
    /// `compiled in 24.6 s (47.2 s CPU, 21% of its 222 s limit; wall 5% of 454 s; 1966 MiB
    /// address space, 24% of 8192 MiB)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pct = |a: f64, b: f64| (100.0 * a / b.max(1e-9)).round();
        let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
        write!(
            f,
            "compiled in {:.1} s ({:.1} s CPU, {}% of its {} s limit; wall {}% of {} s",
            self.wall.as_secs_f64(),
            self.cpu.as_secs_f64(),
            pct(self.cpu.as_secs_f64(), self.cpu_limit.as_secs_f64()),
            self.cpu_limit.as_secs(),
            pct(self.wall.as_secs_f64(), self.wall_limit.as_secs_f64()),
            self.wall_limit.as_secs(),
        )?;
        if self.peak_address_space > 0 {
            write!(
                f,
                "; {:.0} MiB address space, {}% of {:.0} MiB",
                mib(self.peak_address_space),
                pct(self.peak_address_space as f64, self.memory_limit as f64),
                mib(self.memory_limit),
            )?;
        }
        if self.reused_functions > 0 {
            write!(
                f,
                "; {} of {} functions reused from earlier compiles",
                self.reused_functions,
                self.reused_functions + self.compiled_functions
            )?;
        }
        write!(f, ")")
    }
}

/// How the host runs the child process that compiles agents.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Compiler {
    /// `croupier compile-agent`: the `croupier` executable that [`compiler_exe`] finds.
    #[default]
    Croupier,
    /// This executable again, with [`CHILD_ARG`] first: its `main` must call
    /// [`serve_if_child`] before anything else. A program that embeds the host then needs
    /// no `croupier` beside it.
    ThisProcess,
    /// `program`, with `args` before the child's own (`[--functions DIR]`).
    Command {
        /// The executable.
        program: PathBuf,
        /// Its first arguments.
        args: Vec<OsString>,
    },
}

impl Compiler {
    /// The program to start and the arguments that come before the child's own.
    fn command(&self) -> Result<(PathBuf, Vec<OsString>), String> {
        match self {
            Compiler::Croupier => Ok((compiler_exe()?, vec!["compile-agent".into()])),
            Compiler::ThisProcess => {
                let exe = std::env::current_exe()
                    .map_err(|e| format!("cannot find this executable: {e}"))?;
                Ok((exe, vec![CHILD_ARG.into()]))
            }
            Compiler::Command { program, args } => Ok((program.clone(), args.clone())),
        }
    }
}

/// The first argument with which [`Compiler::ThisProcess`] starts this executable as a
/// compile child.
pub const CHILD_ARG: &str = "--croupier-compile-agent";

/// For a program that compiles with [`Compiler::ThisProcess`], first thing in its `main`:
/// when this process was started as a compile child, serves the parent ([`serve_child`])
/// and returns the exit code to exit with; otherwise returns `None` and does nothing.
pub fn serve_if_child() -> Option<i32> {
    let mut args = std::env::args_os().skip(1);
    if args.next()? != CHILD_ARG {
        return None;
    }
    let functions = match (args.next(), args.next(), args.next()) {
        (None, _, _) => None,
        (Some(flag), Some(dir), None) if flag == "--functions" => Some(PathBuf::from(dir)),
        _ => {
            let _ = writeln!(
                std::io::stderr(),
                "compile child: expected [--functions DIR]"
            );
            return Some(REFUSED);
        }
    };
    Some(serve_child(functions.as_deref()))
}

/// The compile child's whole side, on its standard streams (the protocol with the parent,
/// not text for a person): the component in on stdin, the artifact out on stdout, and on
/// stderr one line, a refusal or what the compile cost. Returns the exit code: 0, or
/// [`REFUSED`].
pub fn serve_child(functions: Option<&Path>) -> i32 {
    let mut stderr = std::io::stderr();
    let mut bytes = Vec::new();
    if let Err(e) = std::io::stdin()
        .take(child_input_cap())
        .read_to_end(&mut bytes)
    {
        let _ = writeln!(stderr, "cannot read the component: {e}");
        return REFUSED;
    }
    match compile_for_parent(functions, &bytes) {
        Ok((artifact, cost)) => match std::io::stdout().lock().write_all(&artifact) {
            // The last line of stderr, which the parent reads.
            Ok(()) => {
                let _ = writeln!(stderr, "{cost}");
                0
            }
            Err(e) => {
                let _ = writeln!(stderr, "cannot write the artifact: {e}");
                REFUSED
            }
        },
        Err(refusal) => {
            let _ = writeln!(stderr, "{refusal}");
            REFUSED
        }
    }
}

/// The executable that compiles agents in a child process: `$CROUPIER_EXE`, this process if
/// it is `croupier`, or a `croupier` beside it or one directory up (where Cargo puts it for
/// test binaries in `target/*/deps`).
pub fn compiler_exe() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("CROUPIER_EXE") {
        return Ok(PathBuf::from(p));
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this executable: {e}"))?;
    if exe.file_stem().is_some_and(|s| s == "croupier") {
        return Ok(exe);
    }
    let name = format!("croupier{}", std::env::consts::EXE_SUFFIX);
    exe.ancestors()
        .skip(1)
        .take(2)
        .map(|d| d.join(&name))
        .find(|c| c.is_file())
        .ok_or_else(|| {
            format!(
                "cannot find the `croupier` executable that compiles agents in a child process beside {} (set CROUPIER_EXE)",
                exe.display()
            )
        })
}

/// Most bytes of the child's stderr kept: enough for wasmtime's message and a panic line.
const STDERR_KEEP: usize = 16 * 1024;

/// The largest compiled artifact taken from the child: about 9× the largest real agent's
/// (the 18 MB Python agent compiles to 56 MB). A file that compiles within the CPU and
/// memory limits to more than this is refused, so the host never maps more than it.
pub const MAX_ARTIFACT_BYTES: u64 = 512 << 20;

/// Validates and compiles `bytes` in a child process under `limits`' compile limits for a
/// file with `code_bytes` bytes of code, and returns the serialized component with what the
/// compile cost, or a one-line reason naming the limit hit. With `functions` (a private
/// folder, [`crate::functions`]), the child reuses the functions earlier compiles kept there
/// and keeps its own. `compiler` says which program the child is.
pub fn compile_in_child(
    compiler: &Compiler,
    limits: &Limits,
    bytes: &[u8],
    code_bytes: u64,
    functions: Option<&Path>,
) -> Result<(Vec<u8>, CompileReport), String> {
    use std::process::{Command, Stdio};
    let (exe, first_args) = compiler.command()?;
    // The component goes to the child as a file on its stdin, not through a pipe: a child
    // that dies before reading everything would make a pipe write raise SIGPIPE, whose
    // default action (restored by `croupier`'s main) would end this process.
    let input = input_file(bytes).map_err(|e| format!("cannot stage the component: {e}"))?;
    let mut cmd = Command::new(&exe);
    // mimalloc reserves address space a gigabyte at a time, which the address-space limit
    // counts although nothing is touched: a trivial compile peaked at 1.26 GiB of address
    // space with the default, 0.33 GiB with 64 MiB reservations.
    cmd.env("MIMALLOC_ARENA_RESERVE", "64MiB");
    cmd.args(first_args)
        .stdin(Stdio::from(input))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = functions {
        cmd.arg("--functions").arg(dir);
    }
    let cpu_limit = limits.compile_cpu_limit(code_bytes);
    let wall_limit = limits.compile_wall(code_bytes);
    let cpu = cpu_limit.as_secs().max(1);
    let address_space = u64::from(limits.compile_memory_mib) << 20;
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: only async-signal-safe calls (setrlimit) between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                let set = |what, soft: u64, hard: u64| {
                    let lim = libc::rlimit {
                        rlim_cur: soft as libc::rlim_t,
                        rlim_max: hard as libc::rlim_t,
                    };
                    if libc::setrlimit(what, &lim) == 0 {
                        Ok(())
                    } else {
                        Err(std::io::Error::last_os_error())
                    }
                };
                // SIGXCPU at the soft limit, SIGKILL a second later if it is ignored.
                set(libc::RLIMIT_CPU, cpu, cpu + 1)?;
                set(libc::RLIMIT_AS, address_space, address_space)?;
                // A crashing compiler must not leave gigabytes of core dump behind.
                set(libc::RLIMIT_CORE, 0, 0)?;
                Ok(())
            });
        }
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start the compiler process {}: {e}", exe.display()))?;
    let (Some(mut stdout), Some(mut stderr)) = (child.stdout.take(), child.stderr.take()) else {
        let _ = child.kill();
        let _ = child.wait();
        return Err("cannot talk to the compiler process".into());
    };
    let started = Instant::now();
    let outcome = std::thread::scope(|s| {
        // The pipes are drained on their own threads so that a child that writes a lot
        // cannot block the wall-clock watch below.
        // Both pipes are drained to the end (what is past the kept part is discarded), so a
        // child that writes more than is kept never blocks on a full pipe.
        let out = s.spawn(move || {
            let mut v = Vec::new();
            let r = (&mut stdout)
                .take(MAX_ARTIFACT_BYTES + 1)
                .read_to_end(&mut v)
                .map(|_| v);
            let _ = std::io::copy(&mut stdout, &mut std::io::sink());
            r
        });
        let err = s.spawn(move || {
            let mut v = Vec::new();
            let _ = (&mut stderr).take(STDERR_KEEP as u64).read_to_end(&mut v);
            let _ = std::io::copy(&mut stderr, &mut std::io::sink());
            String::from_utf8_lossy(&v).into_owned()
        });
        let mut timed_out = false;
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Ok(status),
                Ok(None) if started.elapsed() > wall_limit => {
                    timed_out = true;
                    let _ = child.kill();
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(e) => {
                    let _ = child.kill();
                    break Err(e);
                }
            }
        };
        let wall = started.elapsed();
        let out = out.join().ok().and_then(Result::ok);
        let err = err.join().unwrap_or_default();
        (status, timed_out, out, err, wall)
    });
    let (status, timed_out, out, err, wall) = outcome;
    let status = status.map_err(|e| format!("lost the compiler process: {e}"))?;
    if timed_out {
        return Err(format!(
            "compiling took longer than {} s of wall-clock time (the limit)",
            wall_limit.as_secs()
        ));
    }
    if status.success() {
        let out = out.ok_or_else(|| "the compiler process's output was lost".to_string())?;
        if out.len() as u64 > MAX_ARTIFACT_BYTES {
            return Err(format!(
                "the compiled code is larger than {} MiB (the limit)",
                MAX_ARTIFACT_BYTES >> 20
            ));
        }
        let stats = ChildStats::parse(&err);
        let report = CompileReport {
            cpu: stats.cpu,
            cpu_limit,
            wall,
            wall_limit,
            peak_address_space: stats.vm_peak,
            peak_resident: stats.vm_hwm,
            memory_limit: address_space,
            reused_functions: stats.reused,
            compiled_functions: stats.compiled,
        };
        return Ok((out, report));
    }
    Err(explain_failure(status, &err, limits, cpu_limit))
}

/// The line `croupier compile-agent` ends its stderr with after a compile: its own CPU time
/// and peak memory, which only it can read (the peak address space is gone once it exits).
const STATS_PREFIX: &str = "croupier-compile-stats";

/// What the compiling child said it used.
#[derive(Debug, Default, PartialEq)]
struct ChildStats {
    cpu: Duration,
    vm_peak: u64,
    vm_hwm: u64,
    /// Functions taken from the function store, and functions compiled (0 and 0 without it).
    reused: u64,
    compiled: u64,
}

impl ChildStats {
    /// This process's CPU time (every thread) and peak memory, from `getrusage` and
    /// `/proc/self/status`; zeros where the platform does not say.
    fn of_this_process() -> ChildStats {
        let mut stats = ChildStats::default();
        #[cfg(unix)]
        {
            // SAFETY: getrusage writes into the struct we own.
            let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
            if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } == 0 {
                let t = |tv: libc::timeval| {
                    Duration::from_secs(tv.tv_sec.max(0) as u64)
                        + Duration::from_micros(tv.tv_usec.max(0) as u64)
                };
                stats.cpu = t(ru.ru_utime) + t(ru.ru_stime);
            }
        }
        if let Ok(status) = std::fs::read_to_string("/proc/self/status") {
            let kib = |key: &str| {
                status
                    .lines()
                    .find_map(|l| l.strip_prefix(key))
                    .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
                    .map_or(0, |k| k << 10)
            };
            stats.vm_peak = kib("VmPeak:");
            stats.vm_hwm = kib("VmHWM:");
        }
        stats
    }

    fn line(&self) -> String {
        format!(
            "{STATS_PREFIX} cpu_us={} vm_peak={} vm_hwm={} reused={} compiled={}",
            self.cpu.as_micros(),
            self.vm_peak,
            self.vm_hwm,
            self.reused,
            self.compiled
        )
    }

    /// The stats line in the child's stderr; zeros for what is missing.
    fn parse(stderr: &str) -> ChildStats {
        let mut stats = ChildStats::default();
        let Some(line) = stderr
            .lines()
            .rev()
            .find_map(|l| l.strip_prefix(STATS_PREFIX))
        else {
            return stats;
        };
        for field in line.split_whitespace() {
            let Some((k, v)) = field.split_once('=') else {
                continue;
            };
            let Ok(v) = v.parse::<u64>() else { continue };
            match k {
                "cpu_us" => stats.cpu = Duration::from_micros(v),
                "vm_peak" => stats.vm_peak = v,
                "vm_hwm" => stats.vm_hwm = v,
                "reused" => stats.reused = v,
                "compiled" => stats.compiled = v,
                _ => {}
            }
        }
        stats
    }
}

/// `bytes` in an unlinked temporary file, opened for reading from the start.
fn input_file(bytes: &[u8]) -> std::io::Result<std::fs::File> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let path = std::env::temp_dir().join(format!(
        "croupier-compile-{}-{}.wasm",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut f = std::fs::File::options()
            .write(true)
            .create_new(true)
            .open(&path)?;
        f.write_all(bytes)?;
        std::fs::File::open(&path)
    })();
    let _ = std::fs::remove_file(&path);
    result
}

/// One line on why the compiling child failed.
fn explain_failure(
    status: std::process::ExitStatus,
    stderr: &str,
    limits: &Limits,
    cpu_limit: Duration,
) -> String {
    let first_line = |s: &str| {
        s.lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("")
            .chars()
            .take(400)
            .collect::<String>()
    };
    if status.code() == Some(REFUSED) {
        return first_line(stderr);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if matches!(status.signal(), Some(libc::SIGXCPU) | Some(libc::SIGKILL)) {
            return format!(
                "compiling used more than {} s of CPU time (the limit): {} s for any file plus {} s per MiB of code",
                cpu_limit.as_secs(),
                limits.compile_cpu_seconds,
                limits.compile_cpu_seconds_per_mib
            );
        }
    }
    if stderr.contains("overflowed its stack") {
        return "the file nests too deeply: validating it overflowed the compiler's stack"
            .to_string();
    }
    if stderr.contains("memory allocation of") || stderr.contains("out of memory") {
        return format!(
            "compiling needed more than {} MiB of memory (the limit)",
            limits.compile_memory_mib
        );
    }
    format!(
        "the compiler process failed ({status}){}",
        match first_line(stderr) {
            l if l.is_empty() => String::new(),
            l => format!(": {l}"),
        }
    )
}

/// Exit code of `croupier compile-agent` when wasmtime refuses the component (invalid, or
/// over a per-component maximum): its message is the one line on stderr.
pub const REFUSED: i32 = 3;

/// The child side of [`compile_in_child`] (`croupier compile-agent [--functions DIR]`, whose
/// command does the I/O): validates and compiles `bytes` for the engine agents run in (one
/// for every limit), reusing and keeping compiled functions in `functions`.
/// `Ok` holds the serialized artifact and the line that reports what the compile cost (the
/// last line of the child's stderr, which the parent reads); `Err` is wasmtime's refusal on
/// one line (the parent shows the first line only).
pub fn compile_for_parent(
    functions: Option<&Path>,
    bytes: &[u8],
) -> Result<(Vec<u8>, String), String> {
    let store = functions.map(|d| std::sync::Arc::new(crate::functions::FunctionStore::at(d)));
    let one_line = |e: String| e.replace('\n', "; ");
    let engine = crate::engine::compiler(store.clone()).map_err(|e| one_line(format!("{e:#}")))?;
    let artifact = engine
        .precompile_component(bytes)
        .map_err(|e| one_line(format!("{e:#}")))?;
    let mut stats = ChildStats::of_this_process();
    if let Some(store) = store {
        (stats.reused, stats.compiled) = store.hits_and_misses();
    }
    Ok((artifact, stats.line()))
}

/// The most a compile child reads from its parent: the parent sends at most the file limit.
pub fn child_input_cap() -> u64 {
    Limits::default().max_file_bytes.max(1 << 30)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The child's stats line survives the trip through stderr, after other output.
    #[test]
    fn compile_stats_parse_from_the_childs_last_line() {
        let stats = ChildStats {
            cpu: Duration::from_micros(1_234_567),
            vm_peak: 3 << 30,
            vm_hwm: 700 << 20,
            reused: 9_812,
            compiled: 208,
        };
        let err = format!("some warning\n{}\n", stats.line());
        assert_eq!(ChildStats::parse(&err), stats);
        assert_eq!(ChildStats::parse("no stats here"), ChildStats::default());
    }
}
