//! Running ffmpeg and ffprobe for tenants: the sandbox, the runner, and the checks the host
//! applies to a plugin's argv before anything runs.

pub mod argv;
pub mod inspect;
pub mod landlock;
pub mod probe;
pub mod runner;
pub mod sandbox;
pub mod task;
