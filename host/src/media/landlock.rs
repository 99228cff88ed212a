//! The sandbox where bubblewrap cannot run: Landlock confines what files a run may touch (system
//! libraries read-only, the job's inputs read-only, its output folder writable, nothing else)
//! and forbids TCP (ABI 4+), abstract sockets and signals outside the run (ABI 6+); a network
//! namespace, where the kernel grants one, takes the network away altogether. The ruleset is
//! built in the parent; between fork and exec the child makes only raw syscalls.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

const EXECUTE: u64 = 1 << 0;
const WRITE_FILE: u64 = 1 << 1;
const READ_FILE: u64 = 1 << 2;
const READ_DIR: u64 = 1 << 3;
const REMOVE_DIR: u64 = 1 << 4;
const REMOVE_FILE: u64 = 1 << 5;
const MAKE_DIR: u64 = 1 << 7;
const MAKE_REG: u64 = 1 << 8;
const REFER: u64 = 1 << 13;
const TRUNCATE: u64 = 1 << 14;
const IOCTL_DEV: u64 = 1 << 15;
/// The rights that apply to a file (the others only to directories).
const FILE_RIGHTS: u64 = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV;
const RULE_PATH_BENEATH: libc::c_int = 1;
const CREATE_RULESET_VERSION: u32 = 1;

/// Besides the system paths bubblewrap exposes: the CPU count and randomness, which bubblewrap's
/// own /dev and /proc provide. Not /proc (other runs' command lines), nor the rest of /sys.
const EXTRA_READ: &[&str] = &["/sys/devices/system/cpu", "/dev/urandom"];

#[repr(C)]
struct RulesetAttr {
    handled_access_fs: u64,
    handled_access_net: u64,
    scoped: u64,
}

#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// The kernel's Landlock ABI version; 0 when Landlock is not enabled.
pub fn abi() -> i64 {
    // SAFETY: the documented version query: null attribute, size 0.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<RulesetAttr>(),
            0usize,
            CREATE_RULESET_VERSION,
        )
    };
    v.max(0)
}

/// A ruleset for one run.
pub struct Ruleset {
    fd: OwnedFd,
}

impl Ruleset {
    pub fn new(read_only: &[PathBuf], writable: &[PathBuf]) -> io::Result<Ruleset> {
        let abi = abi();
        if abi < 1 {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "Landlock is not enabled in this kernel",
            ));
        }
        let mut handled = (1 << 13) - 1;
        if abi >= 2 {
            handled |= REFER;
        }
        if abi >= 3 {
            handled |= TRUNCATE;
        }
        if abi >= 5 {
            handled |= IOCTL_DEV;
        }
        let attr = RulesetAttr {
            handled_access_fs: handled,
            // TCP bind and connect, with no rule allowing any port.
            handled_access_net: if abi >= 4 { 0b11 } else { 0 },
            // Abstract UNIX sockets and signals outside the ruleset's domain.
            scoped: if abi >= 6 { 0b11 } else { 0 },
        };
        let size: usize = match abi {
            1..=3 => 8,
            4 | 5 => 16,
            _ => 24,
        };
        // SAFETY: a valid attribute of the given size.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                &attr as *const RulesetAttr,
                size,
                0u32,
            )
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: the kernel just gave us this descriptor.
        let ruleset = Ruleset {
            fd: unsafe { OwnedFd::from_raw_fd(fd as RawFd) },
        };
        let system = super::sandbox::SYSTEM_PATHS.iter();
        for path in system.chain(super::sandbox::USR_LINKS).chain(EXTRA_READ) {
            if Path::new(path).exists() {
                ruleset.allow(Path::new(path), (EXECUTE | READ_FILE | READ_DIR) & handled)?;
            }
        }
        ruleset.allow(Path::new("/dev/null"), (READ_FILE | WRITE_FILE) & handled)?;
        for path in read_only {
            ruleset.allow(path, (READ_FILE | READ_DIR) & handled)?;
        }
        let write = READ_FILE
            | READ_DIR
            | WRITE_FILE
            | REMOVE_DIR
            | REMOVE_FILE
            | MAKE_DIR
            | MAKE_REG
            | TRUNCATE;
        for path in writable {
            ruleset.allow(path, write & handled)?;
        }
        Ok(ruleset)
    }

    fn allow(&self, path: &Path, access: u64) -> io::Result<()> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_PATH | libc::O_CLOEXEC)
            .open(path)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        let access = if file.metadata()?.is_dir() {
            access
        } else {
            access & FILE_RIGHTS
        };
        let rule = PathBeneathAttr {
            allowed_access: access,
            parent_fd: file.as_raw_fd(),
        };
        // SAFETY: a valid rule for an open descriptor.
        let r = unsafe {
            libc::syscall(
                libc::SYS_landlock_add_rule,
                self.fd.as_raw_fd(),
                RULE_PATH_BENEATH,
                &rule as *const PathBeneathAttr,
                0u32,
            )
        };
        if r != 0 {
            let e = io::Error::last_os_error();
            return Err(io::Error::new(e.kind(), format!("{}: {e}", path.display())));
        }
        Ok(())
    }

    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

/// In the child, between fork and exec: leave the network where the kernel lets us, then
/// enforce the ruleset for good. Only async-signal-safe syscalls.
pub fn enter(ruleset_fd: RawFd) -> io::Result<()> {
    // SAFETY: plain syscalls on the child's own state.
    unsafe {
        // A network namespace needs CAP_SYS_ADMIN, or a user namespace of our own first.
        if libc::unshare(libc::CLONE_NEWNET) != 0 {
            let _ = libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNET);
        }
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return Err(io::Error::last_os_error());
        }
        if libc::syscall(libc::SYS_landlock_restrict_self, ruleset_fd, 0u32) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}
