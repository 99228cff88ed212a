//! Black-box tests: each starts the real `mediaforge` binary on a free port with its own data
//! directory, and talks HTTP to it. Media is made by ffmpeg's lavfi sources at test time.

mod accounts;
mod ai;
mod backup;
mod buckets;
mod cache;
mod edge;
mod example_plugins;
mod examples;
mod faults;
mod hardening;
mod idle;
mod jobs;
mod legacy;
mod llm;
mod nl_corpus;
mod ops;
mod pipeline;
mod playback;
mod plugin_cli;
mod plugin_host;
mod probe;
mod process;
mod recipes;
mod safety;
mod scaleout;
mod security;
mod servers;
mod split;
mod storage;
mod support;
mod tenants;
mod webhook_formatters;
