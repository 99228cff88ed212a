//! Runs one ffmpeg or ffprobe process: in the sandbox, under resource limits, in its own process
//! group (killed whole on timeout, on an output cap, or when the caller goes away), with bounded
//! capture of stdout and stderr.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, BufReader};
use tokio::sync::watch;

use super::sandbox::{Rlimits, Sandbox};

pub struct Spec<'a> {
    pub program: &'a str,
    pub args: Vec<String>,
    pub read_only: Vec<PathBuf>,
    pub writable: Vec<PathBuf>,
    pub cwd: &'a Path,
    pub timeout: Duration,
    pub rlimits: Rlimits,
    /// Stop the run when this folder holds more bytes or files than allowed.
    pub output_cap: Option<OutputCap>,
    /// Largest stdout kept (ffprobe's JSON); ignored when `progress` is set.
    pub stdout_cap: usize,
    /// The last bytes of stderr kept (`STDERR_TAIL`; more for a run whose log is its result).
    pub stderr_cap: usize,
    /// Receives ffmpeg's `-progress pipe:1` reports (processed media time in microseconds).
    pub progress: Option<watch::Sender<u64>>,
}

#[derive(Debug, Clone)]
pub struct OutputCap {
    pub dir: PathBuf,
    pub max_bytes: u64,
    pub max_files: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Killed {
    Timeout,
    OutputCap,
}

#[derive(Debug)]
pub struct Exit {
    /// Exit code; `None` when a signal ended the process.
    pub code: Option<i32>,
    /// The signal that ended the process (SIGXFSZ at the file-size limit, for instance).
    pub signal: Option<i32>,
    pub killed: Option<Killed>,
    pub stdout: Vec<u8>,
    /// The last part of stderr (bounded).
    pub stderr_tail: String,
    pub elapsed: Duration,
    /// A failed run that hit the memory ceiling (`Sandbox::memory_bytes`): an allocation
    /// refused, or the abort or crash that followed one.
    pub out_of_memory: bool,
}

impl Exit {
    pub fn success(&self) -> bool {
        self.code == Some(0) && self.killed.is_none()
    }
}

/// Linux refuses an argument longer than this (MAX_ARG_STRLEN, 32 pages, with its NUL).
pub const MAX_ARG_BYTES: usize = 131_071;
/// Arguments in all, with their NULs and pointers: half of the usual ARG_MAX (a quarter of an
/// 8 MiB stack), which leaves room for the sandbox's own arguments and the environment.
pub const MAX_ARGV_BYTES: usize = 1_048_576;

/// Refuses an argv the kernel would (E2BIG) with the limit named, before anything is spawned.
fn check_argv(args: &[String]) -> std::io::Result<()> {
    let total: usize = args.iter().map(|a| a.len() + 1 + 8).sum();
    if total > MAX_ARGV_BYTES || args.iter().any(|a| a.len() > MAX_ARG_BYTES) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::ArgumentListTooLong,
            format!(
                "arguments may total at most {MAX_ARGV_BYTES} bytes, each at most {MAX_ARG_BYTES}"
            ),
        ));
    }
    Ok(())
}

fn out_of_memory(limited: bool, status: &std::process::ExitStatus, stderr: &str) -> bool {
    use std::os::unix::process::ExitStatusExt;
    limited
        && !status.success()
        && (stderr.contains("Cannot allocate memory")
            || stderr.contains("Out of memory")
            || stderr.contains("std::bad_alloc")
            || matches!(
                status.signal(),
                Some(libc::SIGSEGV | libc::SIGABRT | libc::SIGBUS)
            ))
}

/// The stderr a run keeps by default: enough for an error's last lines.
pub const STDERR_TAIL: usize = 16 * 1024;

pub async fn run(sandbox: &Sandbox, spec: Spec<'_>) -> std::io::Result<Exit> {
    let started = Instant::now();
    check_argv(&spec.args)?;
    let mut cmd = sandbox.command(
        spec.program,
        &spec.args,
        &spec.read_only,
        &spec.writable,
        spec.cwd,
        spec.rlimits,
    );
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = cmd.spawn()?;
    let pgid = child.id().map(|id| id as i32);
    // If this future is dropped (client gone, server stopping) the whole group goes with it.
    let _guard = GroupGuard(pgid);

    let stdout = child.stdout.take().expect("stdout is piped");
    let stderr = child.stderr.take().expect("stderr is piped");
    let stdout_task = match spec.progress {
        Some(tx) => tokio::spawn(read_progress(stdout, tx)),
        None => tokio::spawn(read_capped(stdout, spec.stdout_cap)),
    };
    let stderr_task = tokio::spawn(read_tail(stderr, spec.stderr_cap));

    let deadline = tokio::time::sleep(spec.timeout);
    tokio::pin!(deadline);
    let mut ticker = tokio::time::interval(Duration::from_millis(200));
    let mut killed = None;
    let status = loop {
        tokio::select! {
            status = child.wait() => break status?,
            _ = &mut deadline, if killed.is_none() => {
                killed = Some(Killed::Timeout);
                kill_group(pgid);
            }
            _ = ticker.tick(), if killed.is_none() && spec.output_cap.is_some() => {
                let cap = spec.output_cap.as_ref().expect("checked by the guard");
                if over_cap(cap).await {
                    killed = Some(Killed::OutputCap);
                    kill_group(pgid);
                }
            }
        }
    };
    // Stragglers of the group (there should be none under bwrap) must not outlive the run.
    kill_group(pgid);
    let program = std::path::Path::new(spec.program)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("process");
    crate::metrics::observe(crate::metrics::PROCESS_SECONDS, program, started.elapsed());
    let stdout = stdout_task.await.unwrap_or_default();
    let stderr_tail = stderr_task.await.unwrap_or_default();
    Ok(Exit {
        code: status.code(),
        signal: std::os::unix::process::ExitStatusExt::signal(&status),
        out_of_memory: killed.is_none()
            && out_of_memory(sandbox.memory_bytes > 0, &status, &stderr_tail),
        killed,
        stdout,
        stderr_tail,
        elapsed: started.elapsed(),
    })
}

struct GroupGuard(Option<i32>);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        kill_group(self.0);
    }
}

fn kill_group(pgid: Option<i32>) {
    if let Some(pgid) = pgid {
        // SAFETY: plain syscall; a group that is already gone gives ESRCH, which is fine.
        unsafe {
            libc::killpg(pgid, libc::SIGKILL);
        }
    }
}

async fn over_cap(cap: &OutputCap) -> bool {
    let (bytes, files) = dir_usage(&cap.dir).await;
    bytes > cap.max_bytes || files > cap.max_files
}

/// Bytes and regular files directly inside `dir` (outputs are not nested).
pub async fn dir_usage(dir: &Path) -> (u64, usize) {
    let (mut bytes, mut files) = (0, 0);
    if let Ok(mut entries) = tokio::fs::read_dir(dir).await {
        while let Ok(Some(entry)) = entries.next_entry().await {
            if let Ok(meta) = entry.metadata().await {
                bytes += meta.len();
                files += 1;
            }
        }
    }
    (bytes, files)
}

async fn read_capped(mut r: impl AsyncRead + Unpin, cap: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match r.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = cap.saturating_sub(out.len());
                out.extend_from_slice(&buf[..n.min(room)]);
            }
        }
    }
    out
}

async fn read_tail(mut r: impl AsyncRead + Unpin, cap: usize) -> String {
    let mut tail: Vec<u8> = Vec::new();
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        match r.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                tail.extend_from_slice(&buf[..n]);
                if tail.len() > cap * 2 {
                    tail.drain(..tail.len() - cap);
                }
            }
        }
    }
    if tail.len() > cap {
        tail.drain(..tail.len() - cap);
    }
    String::from_utf8_lossy(&tail).into_owned()
}

async fn read_progress(r: impl AsyncRead + Unpin, tx: watch::Sender<u64>) -> Vec<u8> {
    let mut lines = BufReader::new(r).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        // ffmpeg 5 writes out_time_us; out_time_ms is also in microseconds (a known misnomer).
        if let Some(v) = line
            .strip_prefix("out_time_us=")
            .or_else(|| line.strip_prefix("out_time_ms="))
        {
            if let Ok(us) = v.trim().parse::<u64>() {
                tx.send_replace(us);
            }
        }
    }
    Vec::new()
}
