//! A run's scratch directory under `data/scratch`: `in/` (read-only to the process) and `out/`
//! (its only writable place). Removed whatever happens to the run; what a crash leaves is
//! cleared at the next start.

use std::path::{Path, PathBuf};

use crate::names;

/// The extension of a concat list the host has checked and rewritten into `in/`
/// (`pipeline/concat.rs`): the only inputs the concat demuxer may read (`media/argv.rs`).
pub const CONCAT_LIST_EXT: &str = "ffconcat";

pub struct Scratch {
    pub dir: PathBuf,
}

impl Scratch {
    pub fn new(root: &Path) -> std::io::Result<Scratch> {
        let dir = root.join(names::random_id(16));
        std::fs::create_dir_all(dir.join("in"))?;
        std::fs::create_dir_all(dir.join("out"))?;
        Ok(Scratch { dir })
    }

    pub fn inputs(&self) -> PathBuf {
        self.dir.join("in")
    }

    pub fn outputs(&self) -> PathBuf {
        self.dir.join("out")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
