//! Whether a component fits a world of this host, decided the same way at start-up and by
//! `mediaforge plugin check`: the export's name gives the contract version (`wit::detect`), the
//! linker checks every import's type (`instantiate_pre`), the generated bindings check the
//! export names, and one instantiation checks every export's type. Names alone are not enough:
//! a component built against an edited copy of the WIT exports the same names with other types,
//! and would fail every call. When types differ, `differences` compares the component's types
//! with the host's WIT text and names the record or function that differs. A 0.2.0 component
//! that exports `configure` is then asked about its config, so a bad one stops start-up with the
//! plugin's own message instead of failing every call.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use wasmtime::Engine;
use wasmtime::component::Component;
use wasmtime::component::types::{ComponentFunc, ComponentItem, Type};

use super::wit::{self, Linked, Version};
use super::{PluginHost, World, compile_cached, linker_for, within};
use crate::config;

/// Why a component is not a plugin of a world.
#[derive(Debug, Clone, PartialEq)]
pub enum Unfit {
    /// It does not export the world's interface at all (it may be a plugin of another world).
    Absent(String),
    /// It exports the interface, but imports or exports do not fit the host's contract.
    Mismatch(String),
    /// It fits, and its `check-config` refuses the config it was given.
    Config(String),
}

impl Unfit {
    /// The one line start-up stops with and `plugin check` prints.
    pub fn line(&self, path: &Path, world: World) -> String {
        match self {
            Unfit::Absent(why) => format!(
                "plugin {} does not implement the {} world (it must export {}): {why}",
                path.display(),
                world.name(),
                Version::exports(world).join(" or ")
            ),
            Unfit::Mismatch(why) => format!(
                "plugin {} does not fit the {} world of this host: {why}",
                path.display(),
                world.name()
            ),
            Unfit::Config(why) => format!(
                "plugin {} refuses its config (`plugins.{}.config`): {}",
                path.display(),
                world.key(),
                one_line(why)
            ),
        }
    }
}

/// What linking found: the contract version, and whether the component checked its config.
pub struct Fit {
    pub version: Version,
    pub config_checked: bool,
}

/// Links `component` for `world` and instantiates it once (within `budget`), so that every
/// import and export is type-checked before the first real call; then asks it about
/// `config_json` when it can say.
pub(super) async fn link(
    host: &PluginHost,
    component: &Component,
    world: World,
    budget: Duration,
    config_json: Arc<str>,
) -> Result<(Fit, Linked), Unfit> {
    let engine = &host.engine;
    let version = wit::detect(engine, component, world).map_err(Unfit::Absent)?;
    let unfit = |e: wasmtime::Error| Unfit::Mismatch(explain(engine, component, version, &e));
    let linker = linker_for(engine, world, version).map_err(|e| Unfit::Mismatch(e.to_string()))?;
    let pre = linker.instantiate_pre(component).map_err(unfit)?;
    let linked = Linked::new(world, version, pre).map_err(unfit)?;
    // One instance for both: the check that types it, and the config check that runs in it.
    let mut store = host.store(world, config_json, None);
    let instance = within(budget, linked.instantiate(&mut store))
        .await
        .map_err(unfit)?;
    let verdict = within(budget, linked.check_config(&mut store, &instance))
        .await
        .map_err(|e| Unfit::Config(format!("its check-config failed: {}", first_line(&e))))?;
    if let Some(Err(why)) = verdict {
        return Err(Unfit::Config(why));
    }
    let fit = Fit {
        version,
        config_checked: verdict.is_some(),
    };
    Ok((fit, linked))
}

/// `mediaforge plugin check`: the component at `path` against each world (or `only`), with the
/// engine `cfg` configures and each world's plugin config from it. `Err` is one line: the file
/// is unreadable or not a component.
pub async fn check_file(
    path: &Path,
    cfg: &config::Plugins,
    only: Option<World>,
) -> Result<Vec<(World, Result<Fit, Unfit>)>, String> {
    let host = PluginHost::empty(cfg).map_err(|e| format!("{e:#}"))?;
    let (component, _) = compile_cached(&host.engine, path, None).map_err(|e| format!("{e:#}"))?;
    let budget = Duration::from_millis(cfg.timeout_ms.max(1));
    let mut out = Vec::new();
    for world in World::ALL
        .into_iter()
        .filter(|w| only.is_none_or(|o| o == *w))
    {
        let config_json = super::config_json(world.entry(cfg)).map_err(|e| format!("{e:#}"))?;
        out.push((
            world,
            link(&host, &component, world, budget, config_json)
                .await
                .map(|(fit, _)| fit),
        ));
    }
    Ok(out)
}

/// Junk is refused before the compiler sees it: its errors quote raw bytes.
pub fn looks_like_component(bytes: &[u8]) -> Result<(), String> {
    match bytes {
        [0, b'a', b's', b'm', _, _, 1, 0, ..] => Ok(()),
        [0, b'a', b's', b'm', _, _, 0, 0, ..] => {
            Err("is a core WebAssembly module, not a component (build it for wasm32-wasip2)".into())
        }
        _ => Err("is not a WebAssembly component (no WebAssembly header)".into()),
    }
}

/// The first line of an error chain, bounded: enough to act on, no byte dumps.
pub fn first_line(e: &wasmtime::Error) -> String {
    one_line(&format!("{e:#}"))
}

fn one_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    let mut out: String = line.chars().take(300).collect();
    if out.len() < line.len() {
        out.push('…');
    }
    out
}

/// Why linking failed: the first difference from the host's WIT when there is one, otherwise
/// wasmtime's own reason (an import the host does not provide, say).
fn explain(
    engine: &Engine,
    component: &Component,
    version: Version,
    e: &wasmtime::Error,
) -> String {
    match differences(engine, component, version).into_iter().next() {
        Some(difference) => format!(
            "it was built against a different WIT than this host's (mediaforge:plugin@{}): {difference}",
            version.name()
        ),
        None => one_line(&format!("{e:#}").replace('\n', " ")),
    }
}

/// Records, variants, enums, flags and functions of the component's `mediaforge:plugin`
/// interfaces (imported or exported) whose member names differ from the host's WIT.
pub fn differences(engine: &Engine, component: &Component, version: Version) -> Vec<String> {
    let host = shapes(version.wit());
    let suffix = format!("@{}", version.name());
    let ty = component.component_type();
    let imports = ty
        .imports(engine)
        .map(|(name, item)| (name, item.ty, false));
    let exports = ty.exports(engine).map(|(name, item)| (name, item.ty, true));
    let mut out = Vec::new();
    for (name, item, exported) in imports.chain(exports) {
        let Some(iface) = name
            .strip_prefix("mediaforge:plugin/")
            .and_then(|n| n.strip_suffix(suffix.as_str()))
        else {
            continue;
        };
        let ComponentItem::ComponentInstance(instance) = item else {
            continue;
        };
        let Some(expected) = host.get(iface) else {
            out.push(format!("interface `{iface}` is not in the host's WIT"));
            continue;
        };
        let mut funcs_seen = Vec::new();
        for (member, item) in instance.exports(engine) {
            let (what, found, wanted) = match &item.ty {
                ComponentItem::ComponentFunc(f) => {
                    funcs_seen.push(member.to_string());
                    ("function", Some(params(f)), expected.funcs.get(member))
                }
                ComponentItem::Type(t) => match members(t) {
                    Some((kind, names)) => (kind, Some(names), expected.types.get(member)),
                    None => continue,
                },
                _ => continue,
            };
            match (found, wanted) {
                (_, None) => out.push(format!(
                    "{what} `{member}` of interface `{iface}` is not in the host's WIT"
                )),
                (Some(found), Some(wanted)) if &found != wanted => out.push(format!(
                    "{what} `{member}` of interface `{iface}` has {} ({}) where the host's has ({})",
                    if what == "function" { "parameters" } else { "members" },
                    found.join(", "),
                    wanted.join(", ")
                )),
                _ => {}
            }
        }
        if exported {
            for missing in expected.funcs.keys().filter(|f| !funcs_seen.contains(f)) {
                out.push(format!(
                    "function `{missing}` of interface `{iface}` is missing"
                ));
            }
        }
    }
    out
}

fn params(f: &ComponentFunc) -> Vec<String> {
    f.params().map(|(name, _)| name.to_string()).collect()
}

fn members(t: &Type) -> Option<(&'static str, Vec<String>)> {
    let names = |it: &mut dyn Iterator<Item = &str>| it.map(str::to_string).collect();
    Some(match t {
        Type::Record(r) => ("record", names(&mut r.fields().map(|f| f.name))),
        Type::Variant(v) => ("variant", names(&mut v.cases().map(|c| c.name))),
        Type::Enum(e) => ("enum", names(&mut e.names())),
        Type::Flags(f) => ("flags", names(&mut f.names())),
        _ => return None,
    })
}

/// One interface of the host's WIT: member names of its named types, parameter names of its
/// functions.
#[derive(Debug, Default, PartialEq)]
struct Shape {
    types: BTreeMap<String, Vec<String>>,
    funcs: BTreeMap<String, Vec<String>>,
}

/// The interfaces of a WIT text, read just far enough for `differences` (the host's own WIT,
/// which its bindings were generated from, so it is known to parse).
fn shapes(wit: &str) -> BTreeMap<String, Shape> {
    let text: String = wit
        .lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = BTreeMap::new();
    for item in items(&text) {
        let Some((name, body)) = item.strip_prefix("interface ").and_then(block) else {
            continue;
        };
        let mut shape = Shape::default();
        for member in items(body) {
            let keyword = member.split_whitespace().next().unwrap_or_default();
            if ["record", "variant", "enum", "flags"].contains(&keyword) {
                if let Some((ty, body)) = block(&member[keyword.len()..]) {
                    shape.types.insert(ty.to_string(), names(body));
                }
            } else if let Some((func, rest)) = member.split_once(": func(") {
                let args = &rest[..rest.find(')').unwrap_or(rest.len())];
                shape.funcs.insert(func.trim().to_string(), names(args));
            }
        }
        out.insert(name.to_string(), shape);
    }
    out
}

/// `name { body }` → (name, body).
fn block(s: &str) -> Option<(&str, &str)> {
    let (name, rest) = s.split_once('{')?;
    Some((name.trim(), &rest[..rest.rfind('}')?]))
}

/// Top-level items of a WIT body: statements ending in `;` and blocks ending in `}`.
fn items(body: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0usize, 0);
    for (i, c) in body.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    out.push(body[start..=i].trim());
                    start = i + 1;
                }
            }
            ';' if depth == 0 => {
                out.push(body[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out
}

/// The names of comma-separated members (`a: t`, `b(t)`, `c`), ignoring commas inside types.
fn names(list: &str) -> Vec<String> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0i32, 0);
    let mut push = |part: &str| {
        let name = part.split([':', '(']).next().unwrap_or_default().trim();
        if !name.is_empty() {
            out.push(name.to_string());
        }
    };
    for (i, c) in list.char_indices() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    push(&list[start..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_wit_is_read_far_enough() {
        let shapes = shapes(wit::Version::V0_1_0.wit());
        let format = &shapes["format"];
        assert_eq!(
            format.types["callback-request"],
            ["content-type", "body", "headers"]
        );
        assert_eq!(format.types["outcome"], ["completed", "failed"]);
        assert_eq!(format.funcs["format-event"], ["event"]);
        assert_eq!(
            shapes["types"].types["log-level"],
            ["debug", "info", "warn", "error"]
        );
        assert_eq!(shapes["builder"].funcs["build-task"], ["task", "layout"]);
        assert_eq!(shapes["llm"].funcs["complete"], ["request"]);
        assert!(shapes["host"].types.is_empty());
    }

    #[test]
    fn junk_is_told_apart_from_modules_and_components() {
        assert!(looks_like_component(b"\0asm\x0d\0\x01\0rest").is_ok());
        let module = looks_like_component(b"\0asm\x01\0\0\0").unwrap_err();
        assert!(module.contains("core WebAssembly module"), "{module}");
        let junk = looks_like_component(b"#!/bin/sh\necho hi\n").unwrap_err();
        assert!(junk.contains("not a WebAssembly component"), "{junk}");
        assert!(looks_like_component(b"").is_err());
    }
}
