//! Running ffmpeg and ffprobe: the sandbox, the runner, the scratch directory a run works in,
//! and the checks the host applies to a plugin's argv before anything runs.

pub mod argv;
pub mod inspect;
pub mod landlock;
pub mod runner;
pub mod sandbox;
pub mod scratch;
