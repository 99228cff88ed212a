//! The `mediaforge` command: `serve` runs the server; `plugin check` inspects a component;
//! `mcp` bridges a stdio MCP client to a server's `/mcp`.

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage:
  mediaforge serve [--config FILE]     serve the API (default config: config/mediaforge.toml)
  mediaforge plugin check FILE.wasm    say which plugin world a component implements
  mediaforge mcp --url URL --key-env VAR
                                       the MCP server at URL over stdio, for clients that only
                                       speak stdio (the API key is read from the variable VAR)
  mediaforge --version";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["serve"] => serve(None),
        ["serve", "--config", file] => serve(Some(PathBuf::from(file))),
        ["plugin", "check", file] => plugin_check(file),
        ["mcp", "--url", url, "--key-env", var] | ["mcp", "--key-env", var, "--url", url] => {
            mcp_bridge(url, var)
        }
        ["--version"] | ["-V"] => {
            println!("mediaforge {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn serve(config: Option<PathBuf>) -> ExitCode {
    init_tracing();
    let given = config.is_some();
    let path = config.unwrap_or_else(|| PathBuf::from("config/mediaforge.toml"));
    let cfg = match mediaforge::config::Config::load(&path, given) {
        Ok(cfg) => cfg,
        Err(e) => {
            eprintln!("mediaforge: {e:#}");
            return ExitCode::from(2);
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    match runtime.block_on(mediaforge::app::serve(cfg)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mediaforge: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// stdin/stdout ↔ `URL/mcp`; logs (errors only, unless `MEDIAFORGE_LOG` says more) on stderr.
fn mcp_bridge(url: &str, key_env: &str) -> ExitCode {
    if std::env::var_os("MEDIAFORGE_LOG").is_some() {
        init_tracing();
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    match runtime.block_on(mediaforge::api::mcp::bridge::run(url, key_env)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mediaforge mcp: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn plugin_check(file: &str) -> ExitCode {
    match mediaforge::plugins::check_component(std::path::Path::new(file)) {
        Ok(results) => {
            let mut any = false;
            for (world, result) in &results {
                match result {
                    Ok(()) => {
                        any = true;
                        println!("{file}: implements the {} world", world.name());
                    }
                    Err(why) => println!("{file}: not a {} plugin: {why}", world.name()),
                }
            }
            if any {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("mediaforge: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The service's own lines at `info`, its dependencies' at `warn` (SurrealDB and the storage
/// engine are chatty at `info`). `MEDIAFORGE_LOG` takes a level for the service alone
/// (`debug`) or a full filter (`info,mediaforge=debug`); `MEDIAFORGE_LOG_FORMAT=json` prints
/// one JSON object a line.
fn init_tracing() {
    use tracing_subscriber::EnvFilter;
    let directives = log_filter(std::env::var("MEDIAFORGE_LOG").ok().as_deref());
    let filter = EnvFilter::try_new(&directives).unwrap_or_else(|e| {
        eprintln!("mediaforge: MEDIAFORGE_LOG={directives:?} is not a filter ({e}); using info");
        EnvFilter::new(log_filter(None))
    });
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    if std::env::var("MEDIAFORGE_LOG_FORMAT").as_deref() == Ok("json") {
        builder.json().init();
    } else {
        builder.init();
    }
}

fn log_filter(given: Option<&str>) -> String {
    match given.map(str::trim).filter(|g| !g.is_empty()) {
        None => "warn,mediaforge=info".into(),
        // A bare level is the service's level; dependencies stay quiet.
        Some(level) if !level.contains(['=', ',']) => format!("warn,mediaforge={level}"),
        Some(filter) => filter.into(),
    }
}
