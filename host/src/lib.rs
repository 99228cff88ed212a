//! Mediaforge: a self-hosted media processing service whose replaceable logic runs as
//! WebAssembly components. `main.rs` is the command line; `app` wires the server together.

//!
//! Layers call only downward: `api` (HTTP in and out, JSON views) and `mcp` (the same for AI
//! agents, through `api`'s request parsers and views) → domain (`directories`, `files`, `jobs`,
//! `pipeline`, `cache`, `translate`, `metering`) → `storage`, `db`, `net`, `plugins`, `media` (sandbox
//! and runner); `task`, `usage`, `names`, `clock` are plain values any layer uses.

pub mod accounts;
pub mod api;
pub mod app;
pub mod auth;
pub mod backup;
pub mod bucket;
pub mod cache;
pub mod clock;
pub mod config;
pub mod credentials;
pub mod db;
pub mod directories;
pub mod error;
pub mod facts;
pub mod files;
pub mod jobs;
pub mod media;
pub mod metering;
pub mod metrics;
pub mod names;
pub mod net;
pub mod operator_cli;
pub mod pipeline;
pub mod plugin_commands;
pub mod plugin_template;
pub mod plugins;
pub mod recipes;
pub mod resumable;
pub mod seal;
pub mod storage;
pub mod sweeper;
pub mod task;
pub mod tenants;
pub mod timing;
pub mod translate;
pub mod usage;
