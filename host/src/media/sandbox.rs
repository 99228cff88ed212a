//! How ffmpeg and ffprobe are contained: a bubblewrap sandbox per run (new mount, pid, net, ipc,
//! uts and user namespaces; read-only system directories; the job's inputs read-only and its
//! output folder writable; nothing else of the host's filesystem; all capabilities dropped),
//! plus resource limits set before ffmpeg starts. Where bubblewrap cannot run, Landlock (`landlock.rs`)
//! confines the files and network instead. Which layer is active is found out at start-up.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use tokio::process::Command;

use crate::config::{self, SandboxMode};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    Bubblewrap,
    /// Landlock file and TCP rules, and a network namespace where the kernel grants one.
    Landlock,
    /// No namespace isolation: only resource limits. Operators must opt in.
    Unsandboxed,
}

#[derive(Debug, Clone)]
pub struct Sandbox {
    pub layer: Layer,
    bwrap: String,
    /// Address space each run may map (RLIMIT_AS), from `limits.process_memory_mb`; 0: none.
    pub memory_bytes: u64,
    /// `prlimit` (util-linux), which sets a run's limits inside the sandbox and then execs
    /// ffmpeg. Set this way, the spawn runs no code of ours between fork and exec, so the
    /// standard library spawns with `posix_spawn` (a vfork) instead of forking the server:
    /// a fork copies the page tables of everything the server has mapped, which cost more
    /// than the sandbox itself (`make bench`'s thumbnail breakdown). Absent, the limits are
    /// set between fork and exec.
    limiter: Option<PathBuf>,
}

/// Where `prlimit` is looked for; `/usr` is bound into every sandbox, so the same path
/// works inside it.
const PRLIMIT: &str = "/usr/bin/prlimit";

/// glibc makes a 64 MiB malloc arena per thread (up to 8 per core), which RLIMIT_AS counts
/// although little of it is used; two arenas keep a many-threaded encode's reservations close
/// to what it really uses (measured in the README's "Memory per run").
const MALLOC_ARENA_MAX: &str = "2";

/// Resource limits applied to every run.
#[derive(Debug, Clone, Copy)]
pub struct Rlimits {
    pub file_size: u64,
    pub cpu_seconds: u64,
    pub open_files: u64,
}

/// System paths every layer exposes read-only: ffmpeg's binary and libraries, their
/// configuration, fonts.
pub(super) const SYSTEM_PATHS: &[&str] = &[
    "/usr",
    "/etc/ld.so.cache",
    "/etc/alternatives",
    "/etc/fonts",
];
/// Symlinks into /usr on merged-/usr systems, directories elsewhere.
pub(super) const USR_LINKS: &[&str] = &["/bin", "/lib", "/lib64", "/sbin"];

/// The first line of `program -version` (ffmpeg's build), run directly: a result cache key
/// includes it, so another ffmpeg never answers with this one's outputs. Empty when it fails.
pub async fn program_version(program: &str) -> String {
    let out = Command::new(program)
        .arg("-version")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .await;
    match out {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .to_string(),
        _ => String::new(),
    }
}

/// `program args` run directly, with an empty environment but for PATH.
fn direct(program: &str, args: &[String], cwd: &Path) -> Command {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(cwd)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("MALLOC_ARENA_MAX", MALLOC_ARENA_MAX);
    cmd
}

impl Sandbox {
    /// Finds out which layer works here. Fails when none does and the operator did not opt in.
    pub async fn detect(cfg: &config::Sandbox) -> anyhow::Result<Sandbox> {
        let unsandboxed = Sandbox {
            layer: Layer::Unsandboxed,
            bwrap: cfg.bwrap_path.clone(),
            memory_bytes: 0,
            limiter: None,
        };
        let want_bwrap = matches!(cfg.mode, SandboxMode::Auto | SandboxMode::Bwrap);
        if want_bwrap {
            let candidate = Sandbox {
                layer: Layer::Bubblewrap,
                bwrap: cfg.bwrap_path.clone(),
                memory_bytes: 0,
                limiter: Path::new(PRLIMIT).is_file().then(|| PathBuf::from(PRLIMIT)),
            };
            match candidate.self_test(&cfg.ffmpeg_path).await {
                Ok(()) => return Ok(candidate),
                Err(e) if cfg.mode == SandboxMode::Bwrap => {
                    anyhow::bail!("sandbox.mode = \"bwrap\" but bubblewrap does not work here: {e}")
                }
                Err(e) => tracing::warn!("bubblewrap sandbox unavailable: {e}"),
            }
        }
        if matches!(cfg.mode, SandboxMode::Auto | SandboxMode::Landlock) {
            let candidate = Sandbox {
                layer: Layer::Landlock,
                bwrap: cfg.bwrap_path.clone(),
                memory_bytes: 0,
                limiter: None,
            };
            match candidate.self_test(&cfg.ffmpeg_path).await {
                Ok(()) => {
                    tracing::info!("Landlock ABI {}", super::landlock::abi());
                    return Ok(candidate);
                }
                Err(e) if cfg.mode == SandboxMode::Landlock => {
                    anyhow::bail!(
                        "sandbox.mode = \"landlock\" but Landlock does not work here: {e}"
                    )
                }
                Err(e) => tracing::warn!("Landlock sandbox unavailable: {e}"),
            }
        }
        if cfg.allow_unsandboxed {
            tracing::warn!(
                "RUNNING FFMPEG WITHOUT A SANDBOX (sandbox.allow_unsandboxed = true): tenants' \
                 tasks are contained only by option checks and resource limits"
            );
            return Ok(unsandboxed);
        }
        anyhow::bail!(
            "no sandbox layer works on this machine (install bubblewrap, or use a kernel with \
             Landlock, or set sandbox.allow_unsandboxed = true to run degraded)"
        )
    }

    async fn self_test(&self, ffmpeg: &str) -> anyhow::Result<()> {
        let dir = std::env::temp_dir().join(format!("mediaforge-sandbox-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        let limits = Rlimits {
            file_size: 1 << 20,
            cpu_seconds: 10,
            open_files: 64,
        };
        let mut cmd = self.command(
            ffmpeg,
            &["-version".to_string()],
            &[],
            &[dir.clone()],
            &dir,
            limits,
        );
        let out = cmd
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .await;
        let _ = std::fs::remove_dir_all(&dir);
        let out = out?;
        if !out.status.success() {
            anyhow::bail!("{}", String::from_utf8_lossy(&out.stderr).trim());
        }
        Ok(())
    }

    /// A command running `program args` confined to `read_only` and `writable` paths (which keep
    /// their host paths inside the sandbox, so argv needs no translation), under `limits` and
    /// `memory_bytes`.
    pub fn command(
        &self,
        program: &str,
        args: &[String],
        read_only: &[PathBuf],
        writable: &[PathBuf],
        cwd: &Path,
        limits: Rlimits,
    ) -> Command {
        match (self.layer, &self.limiter) {
            (Layer::Bubblewrap, Some(prlimit)) => {
                let mut cmd = self.bubblewrap(read_only, writable, cwd);
                cmd.arg(prlimit)
                    .args(prlimit_args(limits, self.memory_bytes))
                    .arg("--")
                    .arg(program)
                    .args(args);
                cmd
            }
            (Layer::Bubblewrap, None) => {
                let mut cmd = self.bubblewrap(read_only, writable, cwd);
                cmd.arg(program).args(args);
                apply_rlimits(&mut cmd, limits, self.memory_bytes);
                cmd
            }
            (Layer::Unsandboxed, _) => {
                let mut cmd = direct(program, args, cwd);
                apply_rlimits(&mut cmd, limits, self.memory_bytes);
                cmd
            }
            (Layer::Landlock, _) => {
                let mut cmd = direct(program, args, cwd);
                apply_rlimits(&mut cmd, limits, self.memory_bytes);
                // Built here, enforced in the child; a ruleset that cannot be built fails the
                // spawn rather than running unconfined.
                let ruleset = super::landlock::Ruleset::new(read_only, writable).map_err(|e| {
                    tracing::warn!("Landlock ruleset: {e}");
                    e.raw_os_error().unwrap_or(libc::EPERM)
                });
                // SAFETY: `enter` makes only raw syscalls between fork and exec.
                unsafe {
                    cmd.pre_exec(move || match &ruleset {
                        Ok(r) => super::landlock::enter(r.raw_fd()),
                        Err(code) => Err(std::io::Error::from_raw_os_error(*code)),
                    });
                }
                cmd
            }
        }
    }

    /// bubblewrap's own arguments, up to the `--` before what runs inside.
    fn bubblewrap(&self, read_only: &[PathBuf], writable: &[PathBuf], cwd: &Path) -> Command {
        let mut cmd = Command::new(&self.bwrap);
        cmd.args([
            "--die-with-parent",
            "--unshare-all",
            "--new-session",
            "--cap-drop",
            "ALL",
            "--clearenv",
            "--setenv",
            "PATH",
            "/usr/bin:/bin",
            "--setenv",
            "MALLOC_ARENA_MAX",
            MALLOC_ARENA_MAX,
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--tmpfs",
            "/tmp",
        ]);
        for dir in SYSTEM_PATHS {
            if Path::new(dir).exists() {
                cmd.args(["--ro-bind", dir, dir]);
            }
        }
        // Merged-/usr systems have these as symlinks; others as directories.
        for dir in USR_LINKS {
            match std::fs::read_link(dir) {
                Ok(target) => {
                    cmd.arg("--symlink").arg(target).arg(dir);
                }
                Err(_) if Path::new(dir).is_dir() => {
                    cmd.args(["--ro-bind", dir, dir]);
                }
                Err(_) => {}
            }
        }
        for p in read_only {
            cmd.arg("--ro-bind").arg(p).arg(p);
        }
        for p in writable {
            cmd.arg("--bind").arg(p).arg(p);
        }
        cmd.arg("--chdir").arg(cwd).arg("--");
        cmd
    }
}

/// `prlimit`'s options for `limits` (each sets the soft and the hard limit), as
/// `apply_rlimits` sets them.
fn prlimit_args(limits: Rlimits, memory_bytes: u64) -> Vec<String> {
    let mut args = vec![
        format!("--fsize={}", limits.file_size),
        format!("--cpu={}", limits.cpu_seconds),
        format!("--nofile={}", limits.open_files),
        "--core=0".to_string(),
    ];
    if memory_bytes > 0 {
        args.push(format!("--as={memory_bytes}"));
    }
    args
}

/// Sets limits in the child between fork and exec; they carry over to ffmpeg under bwrap.
/// `memory_bytes` (0: none) caps the address space: this host has no delegated cgroup v2 to
/// set `memory.max` in, and RLIMIT_AS needs no privilege.
fn apply_rlimits(cmd: &mut Command, limits: Rlimits, memory_bytes: u64) {
    // SAFETY: only async-signal-safe calls (setrlimit) run between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            set(libc::RLIMIT_FSIZE, limits.file_size)?;
            set(libc::RLIMIT_CPU, limits.cpu_seconds)?;
            set(libc::RLIMIT_NOFILE, limits.open_files)?;
            set(libc::RLIMIT_CORE, 0)?;
            if memory_bytes > 0 {
                set(libc::RLIMIT_AS, memory_bytes)?;
            }
            Ok(())
        });
    }
}

fn set(resource: libc::__rlimit_resource_t, value: u64) -> std::io::Result<()> {
    let lim = libc::rlimit {
        rlim_cur: value,
        rlim_max: value,
    };
    // SAFETY: plain syscall with a valid pointer.
    if unsafe { libc::setrlimit(resource, &lim) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}
