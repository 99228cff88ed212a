//! Mediaforge: a self-hosted media processing service whose replaceable logic runs as
//! WebAssembly components. `main.rs` is the command line; `app` wires the server together.

pub mod api;
pub mod app;
pub mod auth;
pub mod clock;
pub mod config;
pub mod db;
pub mod error;
pub mod jobs;
pub mod media;
pub mod metering;
pub mod metrics;
pub mod names;
pub mod net;
pub mod plugins;
pub mod storage;
pub mod sweeper;
pub mod task;
