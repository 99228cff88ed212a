//! Whether a task's result is a function of its inputs, for the host's result cache. The host
//! caches a task unless the command's `uncacheable` says why not (WIT 0.2.0, docs/plugins.md);
//! this module says so when the command has something whose output changes from run to run:
//!
//! - a random source without a fixed seed: `anoisesrc`, `random` (their `seed` defaults to a
//!   fresh one per run);
//! - wall-clock text: `drawtext` with `%{localtime}`, `%{gmtime}` or `expansion=strftime`;
//! - wall-clock metadata: `-metadata creation_time=now` (any time or date key set to `now`).

use crate::FfmpegCommand;
use crate::filtergraph;

/// Filters whose output is random unless given a seed.
const UNSEEDED_RANDOM: &[&str] = &["anoisesrc", "random"];

/// Why the built command's result is not a function of its inputs, if it is not.
pub fn uncacheable(cmd: &FfmpegCommand) -> Option<String> {
    let lists = std::iter::once(&cmd.global_args)
        .chain(cmd.inputs.iter().map(|i| &i.args))
        .chain(cmd.outputs.iter().map(|o| &o.args));
    for args in lists {
        for pair in args.windows(2) {
            if let Some(reason) = uncacheable_pair(&pair[0], &pair[1]) {
                return Some(format!("not cached: {reason}"));
            }
        }
    }
    None
}

/// Why `option value` makes the result differ between runs, if it does.
fn uncacheable_pair(option: &str, value: &str) -> Option<String> {
    let name = option.trim_start_matches('-');
    let base = name.split(':').next().unwrap_or(name);
    if base == "metadata" {
        let (key, val) = value.split_once('=')?;
        let key = key.to_ascii_lowercase();
        return (val.trim().eq_ignore_ascii_case("now")
            && (key.contains("time") || key.contains("date")))
        .then(|| format!("{option} {value} writes the wall-clock time"));
    }
    if !matches!(base, "filter_complex" | "lavfi" | "vf" | "af" | "filter") {
        return None;
    }
    let graph = filtergraph::parse(value).ok()?;
    graph.filters.iter().find_map(|f| {
        let arg = |key: &str| {
            f.args
                .iter()
                .find(|a| a.key.as_deref() == Some(key))
                .map(|a| a.value.as_str())
        };
        let seeded = arg("seed").or(arg("s")).is_some_and(|s| s.trim() != "-1");
        if UNSEEDED_RANDOM.contains(&f.name.as_str()) && !seeded {
            return Some(format!(
                "random source `{}` without a fixed seed (give seed=N to cache it)",
                f.name
            ));
        }
        if f.name == "drawtext" {
            let text = arg("text").unwrap_or("");
            if text.contains("%{localtime") || text.contains("%{gmtime") {
                return Some("drawtext writes the wall-clock time".into());
            }
            if arg("expansion") == Some("strftime") {
                return Some("drawtext with expansion=strftime writes the wall-clock time".into());
            }
        }
        None
    })
}
