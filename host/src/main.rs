//! The `mediaforge` command: `serve` runs the server; `plugin check` and `plugin run` check or
//! call a component without a server, `plugin new` starts one; `mcp` bridges a stdio MCP client
//! to a server's `/mcp`; `accounts`, `keys` and `audit` call a running server's operator API.

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage:
  mediaforge serve [--config FILE]     serve the API (default config: config/mediaforge.toml)
  mediaforge plugin check FILE.wasm [--world WORLD] [--config FILE]
                                       check a component against the host's WIT, as start-up
                                       does (exit 1 on any mismatch)
  mediaforge plugin run WORLD FILE.wasm INPUT.json [--config FILE]
                                       call a plugin once with the server's limits and checks,
                                       print the result as JSON (samples: docs/plugins/samples)
  mediaforge plugin new --world WORLD NAME [--dir DIR] [--sdk PATH]
                                       write a plugin crate on the SDK (plugins/sdk) that builds
                                       for wasm32-wasip2 and passes plugin check
  mediaforge mcp --url URL --key-env VAR
                                       the MCP server at URL over stdio, for clients that only
                                       speak stdio (the API key is read from the variable VAR)
  mediaforge --version";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["serve"] => serve(None),
        ["serve", "--config", file] => serve(Some(file)),
        ["plugin", "check", file, options @ ..] => match flags(options, &["--world", "--config"]) {
            Some(flags) => plugin_check(file, &flags),
            None => usage(),
        },
        ["plugin", "run", world, file, input, options @ ..] => {
            match flags(options, &["--config"]) {
                Some(flags) => plugin_run(world, file, input, &flags),
                None => usage(),
            }
        }
        ["plugin", "new", rest @ ..] => match named(rest) {
            Some((name, flags)) => plugin_new(name, &flags),
            None => usage(),
        },
        ["mcp", "--url", url, "--key-env", var] | ["mcp", "--key-env", var, "--url", url] => {
            mcp_bridge(url, var)
        }
        ["accounts" | "keys" | "audit" | "backup", ..] => operator(&args),
        ["restore", from] => restore(from, None),
        ["restore", from, "--config", file] | ["restore", "--config", file, from] => {
            restore(from, Some(file))
        }
        ["--version"] | ["-V"] => {
            println!("mediaforge {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        _ => usage(),
    }
}

fn usage() -> ExitCode {
    eprintln!("{USAGE}\n{}", mediaforge::operator_cli::USAGE);
    ExitCode::from(2)
}

/// `restore`: a backup into the config's fresh database and store, no server running.
fn restore(from: &str, config: Option<&str>) -> ExitCode {
    let cfg = match config_or_default(config) {
        Ok(cfg) => cfg,
        Err(code) => return code,
    };
    match server_runtime().block_on(mediaforge::backup::restore(
        &cfg,
        std::path::Path::new(from),
    )) {
        Ok(restored) => {
            println!(
                "{}",
                serde_json::to_string_pretty(&restored).unwrap_or_default()
            );
            if restored.missing.is_empty() {
                ExitCode::SUCCESS
            } else {
                eprintln!(
                    "mediaforge: {} object(s) of the backup are missing; their files have no bytes",
                    restored.missing.len()
                );
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("mediaforge: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// `accounts`, `keys`, `audit`, `backup`: one call of the running server's operator API, its answer
/// printed as JSON.
fn operator(args: &[&str]) -> ExitCode {
    // `--config FILE` and `--url URL` may stand anywhere after the command.
    let mut rest: Vec<&str> = Vec::new();
    let (mut config, mut url) = (None, None);
    let mut i = 0;
    while i < args.len() {
        match (args[i], args.get(i + 1)) {
            ("--config", Some(v)) if config.is_none() => config = Some(*v),
            ("--url", Some(v)) if url.is_none() => url = Some(*v),
            (arg, _) => {
                rest.push(arg);
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    let Some(call) = mediaforge::operator_cli::parse(&rest) else {
        return usage();
    };
    let cfg = match config_or_default(config) {
        Ok(cfg) => cfg,
        Err(code) => return code,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    match runtime.block_on(mediaforge::operator_cli::run(&cfg, url, call)) {
        Ok(answer) => {
            println!(
                "{}",
                serde_json::to_string_pretty(&answer).unwrap_or_default()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("mediaforge: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `--name value` pairs, each of `allowed` at most once; `None` on anything else.
fn flags<'a>(args: &[&'a str], allowed: &[&str]) -> Option<Vec<(&'a str, &'a str)>> {
    let mut out: Vec<(&str, &str)> = Vec::new();
    for pair in args.chunks(2) {
        let [name, value] = pair else { return None };
        if !allowed.contains(name) || out.iter().any(|(n, _)| n == name) {
            return None;
        }
        out.push((name, value));
    }
    Some(out)
}

/// One positional argument among `--name value` pairs (`plugin new`).
fn named<'a>(args: &[&'a str]) -> Option<(&'a str, Vec<(&'a str, &'a str)>)> {
    let at = args
        .iter()
        .enumerate()
        .position(|(i, a)| !a.starts_with("--") && (i == 0 || !args[i - 1].starts_with("--")))?;
    let rest: Vec<&str> = args[..at].iter().chain(&args[at + 1..]).copied().collect();
    let flags = flags(&rest, &["--world", "--dir", "--sdk"])?;
    Some((args[at], flags))
}

fn flag<'a>(flags: &[(&str, &'a str)], name: &str) -> Option<&'a str> {
    flags.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
}

/// The config file `given` (else the default, `config/mediaforge.toml`); an error is printed
/// and is the exit status 2.
fn config_or_default(given: Option<&str>) -> Result<mediaforge::config::Config, ExitCode> {
    let path = PathBuf::from(given.unwrap_or("config/mediaforge.toml"));
    mediaforge::config::Config::load(&path, given.is_some()).map_err(|e| {
        eprintln!("mediaforge: {e:#}");
        ExitCode::from(2)
    })
}

/// The runtime the server's own code runs on (`serve`, `restore`).
fn server_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        // Unoptimised builds move large futures through the stack (a request's whole pipeline
        // is one future); tokio's 2 MiB default overflowed in the debug build the tests run.
        // Only touched pages are committed, so a release build pays nothing for the room.
        .thread_stack_size(8 * 1024 * 1024)
        .build()
        .expect("tokio runtime")
}

fn serve(config: Option<&str>) -> ExitCode {
    keep_freed_memory();
    init_tracing();
    let cfg = match config_or_default(config) {
        Ok(cfg) => cfg,
        Err(code) => return code,
    };
    match server_runtime().block_on(mediaforge::api::serve::serve(cfg)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mediaforge: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// glibc's malloc hands a freed block back to the kernel once the heap's free top passes a
/// threshold that adapts to the largest block freed (about twice it), and maps blocks above
/// another adaptive threshold one by one. An upload's body arrives as ~400 KB buffers that the
/// spool's writer frees (`storage/spool.rs`), so the heap was trimmed and grown again for every
/// few buffers: each new buffer's pages were faulted in and zeroed again, about a tenth of the
/// server's CPU during an upload. Fixed thresholds keep up to 32 MiB of free heap per arena
/// for reuse (the spool holds at most about 25 MiB in flight) and map only blocks above
/// 1 MiB: a 256 MB upload went from 0.17 to 0.145 s (`make bench upload`, medians).
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters; it is called before any thread starts.
    unsafe {
        libc::mallopt(libc::M_TRIM_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
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

/// The configuration `--config` names, or the default file as `serve` reads it.
fn plugin_config(flags: &[(&str, &str)]) -> Result<mediaforge::config::Config, String> {
    let given = flag(flags, "--config");
    let path = PathBuf::from(given.unwrap_or("config/mediaforge.toml"));
    mediaforge::config::Config::load(&path, given.is_some()).map_err(|e| format!("{e:#}"))
}

fn world_arg(name: &str) -> Result<mediaforge::plugins::World, String> {
    mediaforge::plugins::World::from_name(name).ok_or_else(|| {
        format!("unknown world '{name}' (command-builder, translator, webhook-formatter or recipe)")
    })
}

/// A small runtime for one plugin command.
fn block_on<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime")
        .block_on(f)
}

fn plugin_check(file: &str, flags: &[(&str, &str)]) -> ExitCode {
    let checked = (|| {
        let cfg = plugin_config(flags)?;
        let only = flag(flags, "--world").map(world_arg).transpose()?;
        block_on(mediaforge::plugin_commands::check(
            std::path::Path::new(file),
            only,
            &cfg,
        ))
    })();
    match checked {
        Ok((lines, usable)) => {
            for line in lines {
                println!("{line}");
            }
            if usable {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("mediaforge: {e}");
            ExitCode::FAILURE
        }
    }
}

fn plugin_run(world: &str, file: &str, input: &str, flags: &[(&str, &str)]) -> ExitCode {
    // The plugin's warnings and errors (its panic messages) on stderr; `MEDIAFORGE_LOG=debug`
    // shows every line it logs.
    init_tracing_at(Some("warn"));
    let ran = (|| {
        let world = world_arg(world)?;
        let cfg = plugin_config(flags)?;
        let input =
            std::fs::read_to_string(input).map_err(|e| format!("cannot read {input}: {e}"))?;
        block_on(mediaforge::plugin_commands::run(
            world,
            std::path::Path::new(file),
            &input,
            &cfg,
        ))
    })();
    match ran {
        Ok(answer) => {
            println!(
                "{}",
                serde_json::to_string_pretty(&answer).expect("JSON values serialise")
            );
            if answer["ok"] == true {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("mediaforge: {e}");
            ExitCode::from(2)
        }
    }
}

fn plugin_new(name: &str, flags: &[(&str, &str)]) -> ExitCode {
    let created = (|| {
        let world = flag(flags, "--world").ok_or_else(|| "--world is required".to_string())?;
        let world = world_arg(world)?;
        mediaforge::plugin_template::create(&mediaforge::plugin_template::NewPlugin {
            world,
            name,
            dir: flag(flags, "--dir").map(std::path::Path::new),
            sdk: flag(flags, "--sdk").map(std::path::Path::new),
        })
    })();
    match created {
        Ok(lines) => {
            for line in lines {
                println!("{line}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("mediaforge: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The service's own lines at `info`, its dependencies' at `warn` (SurrealDB and the storage
/// engine are chatty at `info`). `MEDIAFORGE_LOG` takes a level for the service alone
/// (`debug`) or a full filter (`info,mediaforge=debug`); `MEDIAFORGE_LOG_FORMAT=json` prints
/// one JSON object a line.
fn init_tracing() {
    init_tracing_at(None);
}

/// `init_tracing` with `level` as the service's level when `MEDIAFORGE_LOG` is not set.
fn init_tracing_at(level: Option<&str>) {
    use tracing_subscriber::EnvFilter;
    let given = std::env::var("MEDIAFORGE_LOG").ok();
    let directives = log_filter(given.as_deref().or(level));
    let filter = EnvFilter::try_new(&directives).unwrap_or_else(|e| {
        eprintln!("mediaforge: MEDIAFORGE_LOG={directives:?} is not a filter ({e}); using info");
        EnvFilter::new(log_filter(None))
    });
    // Colours only for a person at a terminal: a log file or journal gets plain text.
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
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
