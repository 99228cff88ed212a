//! The sourced corpus (`tests/corpus/*.json`, issue #33): instructions re-expressed from public
//! questions and tutorials about ffmpeg, each with its source, split by source into a part the
//! translator is developed on (`dev`) and a part it is only measured on (`measure`). Every case
//! is translated as the host would (the built-in recipes offered), its task run by ffmpeg on
//! the lavfi-made fixtures, and judged: right, refused though doable, refused without naming
//! the clause, failed in ffmpeg, or **wrong** (ran and answered something else, or ran what
//! should have been refused). Prints the figures per part, class and language.
//!
//! `cargo test -p translator --test corpus -- --ignored --nocapture`; `PART=dev` runs one
//! part, `CASE=id1,id2` some cases, `CORPUS_OUT=file.json` writes every verdict (the measuring
//! part's misses are printed only with `SHOW_MEASURE=1`); `HELD_OUT=file.json` judges a held-out
//! set (`tests/held-out/`) instead.
//!
//! `LLM_ENDPOINT=http://127.0.0.1:PORT/v1` (an OpenAI-compatible server; `tests/llm/run.sh
//! corpus` starts one) asks the LLM translator what this one refuses, as the host does with
//! `[plugins.translator] fallback`, and prints what the fallback added and what it cost.

mod support;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use mediaforge_plugin::{Answer, OfferedRecipe};
use serde_json::{Value, json};
use support::*;

/// The recipes the host's default recipe plugin offers.
const RECIPES: &[&str] = &[
    "hls",
    "dash",
    "storyboard",
    "waveform",
    "audiogram",
    "loudness",
    "analyze",
];

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Verdict {
    Right,
    RefusedDoable,
    RefusedUnnamed,
    Failed,
    Wrong,
}

impl Verdict {
    fn name(self) -> &'static str {
        match self {
            Verdict::Right => "right",
            Verdict::RefusedDoable => "refused though doable",
            Verdict::RefusedUnnamed => "refused, clause not named",
            Verdict::Failed => "ffmpeg failed",
            Verdict::Wrong => "WRONG",
        }
    }
}

fn offered() -> Vec<OfferedRecipe> {
    RECIPES
        .iter()
        .map(|n| OfferedRecipe {
            name: n.to_string(),
            description: String::new(),
            params_schema: "{}".into(),
        })
        .collect()
}

/// The corpus's cases, or with `HELD_OUT=file.json` the cases of one held-out set (judged by the
/// same checks, as part `held-out`).
fn cases() -> Vec<Value> {
    if let Ok(file) = std::env::var("HELD_OUT") {
        let j: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let mut cases = j["cases"].as_array().unwrap().clone();
        cases.iter_mut().for_each(|c| c["part"] = json!("held-out"));
        return cases;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut all = Vec::new();
    for f in files {
        let j: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        all.extend(j["cases"].as_array().unwrap().iter().cloned());
    }
    all
}

/// Every value under a key named `name`, anywhere in `v`.
fn fields<'a>(v: &'a Value, name: &str, found: &mut Vec<&'a Value>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                if k == name {
                    found.push(x);
                }
                fields(x, name, found);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| fields(x, name, found)),
        _ => {}
    }
}

fn check_probe(expect: &Value, result: &Value) -> Vec<String> {
    let mut bad = Vec::new();
    for name in expect["has_fields"].as_array().into_iter().flatten() {
        let name = name.as_str().unwrap();
        let mut found = Vec::new();
        fields(result, name, &mut found);
        if found.is_empty() {
            bad.push(format!("answer lacks {name}"));
        }
    }
    for (name, want) in expect["field_equals"].as_object().into_iter().flatten() {
        let mut found = Vec::new();
        fields(result, name, &mut found);
        // "48000" and 48000 are the same answer to a user.
        let same = |g: &&Value| {
            *g == want || g.to_string().trim_matches('"') == want.to_string().trim_matches('"')
        };
        if !found.iter().any(same) {
            bad.push(format!("{name} = {found:?}, expected {want}"));
        }
    }
    bad
}

/// Judges one case; the verdict and what was wrong with it.
fn judge(case: &Value, fixtures: &Path, work: &Path) -> (Verdict, String) {
    let id = case["id"].as_str().unwrap();
    let instructions = case["instructions"].as_str().unwrap();
    let inputs = case_inputs(case);
    let expect = &case["expect"];
    let refuse = expect["status"].as_u64() == Some(400);
    let refused = |message: &str| {
        if !refuse {
            return (Verdict::RefusedDoable, message.to_string());
        }
        let lower = message.to_lowercase();
        let names: Vec<&str> = expect["names_any"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        if names.is_empty() || names.iter().any(|n| lower.contains(&n.to_lowercase())) {
            (Verdict::Right, message.to_string())
        } else {
            (Verdict::RefusedUnnamed, message.to_string())
        }
    };
    if case["endpoint"] == "probe" {
        let answer = translator::translate_probe(instructions).or_else(|first| {
            fallback::ask(id, |complete| {
                llm_translator::translate_probe(
                    "{}",
                    instructions,
                    &facts(&fixtures.join(inputs[0])),
                    complete,
                )
            })
            .ok_or(first)
        });
        return match answer {
            Err(r) => refused(&r.message),
            Ok(_) if refuse => (Verdict::Wrong, "answered what should be refused".into()),
            Ok(cfg) => {
                let result = ffprobe_json(&fixtures.join(inputs[0]), &ffprobe_argv(&cfg));
                let bad = check_probe(expect, &result);
                if bad.is_empty() {
                    (Verdict::Right, String::new())
                } else {
                    (Verdict::Wrong, bad.join("; "))
                }
            }
        };
    }
    let facts: Vec<_> = inputs.iter().map(|n| facts(&fixtures.join(n))).collect();
    let answer = translator::translate(instructions, &facts, &offered()).or_else(|first| {
        fallback::ask(id, |complete| {
            llm_translator::translate_task("{}", instructions, &facts, complete)
        })
        .map(Answer::Task)
        .ok_or(first)
    });
    let task = match answer {
        Err(r) => return refused(&r.message),
        Ok(_) if refuse => return (Verdict::Wrong, "ran what should be refused".into()),
        Ok(Answer::Recipe(call)) => {
            let Some(want) = expect["recipe"].as_str() else {
                return (Verdict::Wrong, format!("answered the recipe {}", call.name));
            };
            if call.name != want {
                return (
                    Verdict::Wrong,
                    format!("recipe {}, expected {want}", call.name),
                );
            }
            let params: Value = serde_json::from_str(&call.params).unwrap_or(json!({}));
            for (k, v) in expect["recipe_params"].as_object().into_iter().flatten() {
                if params.get(k) != Some(v) {
                    return (
                        Verdict::Wrong,
                        format!("params {params}, expected {k} = {v}"),
                    );
                }
            }
            return (Verdict::Right, String::new());
        }
        Ok(Answer::Task(_)) if expect["recipe"].is_string() => {
            return (Verdict::Wrong, "a task where a recipe was expected".into());
        }
        Ok(Answer::Task(t)) => t,
    };
    let out = work.join(id);
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    let argv = match policy_argv(&task, fixtures, &out) {
        Ok(a) => a,
        Err(e) => return (Verdict::Failed, format!("policy: {e}")),
    };
    let run = Command::new("ffmpeg").args(&argv).output().unwrap();
    if !run.status.success() {
        let err = String::from_utf8_lossy(&run.stderr);
        let last = err.lines().rev().take(2).collect::<Vec<_>>().join(" | ");
        return (Verdict::Failed, format!("{last}\n  argv: {argv:?}"));
    }
    let files = outputs(&task, &out);
    let bad = check_outputs(expect, &files, &fixtures.join(inputs[0]));
    if bad.is_empty() {
        // The command, for judging by hand what the checks cannot see (`CORPUS_OUT`).
        (Verdict::Right, format!("argv: {argv:?}"))
    } else {
        (
            Verdict::Wrong,
            format!("{}\n  argv: {argv:?}", bad.join("; ")),
        )
    }
}

type Tally = BTreeMap<String, BTreeMap<Verdict, usize>>;

fn print_table(title: &str, tally: &Tally) {
    eprintln!("\n{title}");
    eprintln!(
        "  {:<12} {:>5} {:>6} {:>8} {:>8} {:>7} {:>6}",
        "", "cases", "right", "refused", "unnamed", "failed", "WRONG"
    );
    for (k, row) in tally {
        let n: usize = row.values().sum();
        let g = |v| row.get(&v).copied().unwrap_or(0);
        eprintln!(
            "  {:<12} {:>5} {:>3} {:>2}% {:>8} {:>8} {:>7} {:>6}",
            k,
            n,
            g(Verdict::Right),
            100 * g(Verdict::Right) / n.max(1),
            g(Verdict::RefusedDoable),
            g(Verdict::RefusedUnnamed),
            g(Verdict::Failed),
            g(Verdict::Wrong)
        );
    }
}

#[test]
#[ignore = "runs ffmpeg on every case; a measurement, not a gate"]
fn sourced_corpus() {
    assert!(have_ffmpeg(), "ffmpeg is required (make setup installs it)");
    let work = std::env::temp_dir().join("translator-corpus");
    let fixtures = work.join("fixtures");
    make_fixtures(&fixtures);
    let part = std::env::var("PART").ok();
    let only = std::env::var("CASE").ok();
    let mut by: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut verdicts = Vec::new();
    for case in cases() {
        let id = case["id"].as_str().unwrap().to_string();
        let p = case["part"].as_str().unwrap_or("dev").to_string();
        if part.as_deref().is_some_and(|w| w != p)
            || only
                .as_deref()
                .is_some_and(|o| !o.split(',').any(|o| id == o))
        {
            continue;
        }
        let (verdict, why) = judge(&case, &fixtures, &work);
        // The measuring part's misses are counted, not read: the translator is never tuned on
        // them (`SHOW_MEASURE=1` prints them, for after a measurement is recorded).
        let shown = p != "measure" || std::env::var_os("SHOW_MEASURE").is_some();
        if verdict != Verdict::Right && shown {
            eprintln!("{:<26} {id} [{p}] {}", verdict.name(), case["instructions"]);
            eprintln!("     {}", why.replace('\n', "\n     "));
        }
        let lang = case["lang"].as_str().unwrap_or("?").to_string();
        let class = case["class"].as_str().unwrap_or("?").to_string();
        for (table, key) in [
            ("part", p.clone()),
            ("class", format!("{p}/{class}")),
            ("lang", format!("{p}/{lang}")),
        ] {
            *by.entry(table)
                .or_default()
                .entry(key)
                .or_default()
                .entry(verdict)
                .or_default() += 1;
        }
        verdicts.push(json!({"id": id, "part": p, "lang": lang, "class": class,
            "verdict": verdict.name(), "why": why}));
    }
    for t in ["part", "lang", "class"] {
        print_table(&format!("by {t}"), by.get(t).unwrap_or(&Tally::new()));
    }
    fallback::report(&verdicts);
    if let Ok(path) = std::env::var("CORPUS_OUT") {
        std::fs::write(path, serde_json::to_string_pretty(&verdicts).unwrap()).unwrap();
    }
}

/// Input facts of a fixture, read with ffprobe from the fixtures made once.
fn fixture_facts(name: &str) -> mediaforge_plugin::InputFacts {
    static DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join("translator-corpus/fixtures");
        make_fixtures(&dir);
        dir
    });
    facts(&dir.join(name))
}

/// Without running ffmpeg (only ffprobe on the fixtures), so in every `make test`: no instruction of the development part that must be
/// refused (an upload, a stream, a host file, recognition...) is translated into a task or a
/// recipe, and each refusal names what it refuses. The measuring part is never asserted on: it
/// is only measured (`sourced_corpus`).
#[test]
fn dev_part_refusals_hold() {
    let mut answered = Vec::new();
    for case in cases() {
        if case["part"] != "dev" || case["expect"]["status"].as_u64() != Some(400) {
            continue;
        }
        let id = case["id"].as_str().unwrap();
        let instructions = case["instructions"].as_str().unwrap();
        let refusal = if case["endpoint"] == "probe" {
            translator::translate_probe(instructions).err()
        } else {
            let facts: Vec<_> = case_inputs(&case).into_iter().map(fixture_facts).collect();
            translator::translate(instructions, &facts, &offered()).err()
        };
        let Some(refusal) = refusal else {
            answered.push(format!("{id}: answered \"{instructions}\""));
            continue;
        };
        let lower = refusal.message.to_lowercase();
        let names = case["expect"]["names_any"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if !names.is_empty()
            && !names
                .iter()
                .any(|n| lower.contains(&n.as_str().unwrap().to_lowercase()))
        {
            answered.push(format!(
                "{id}: refused without naming {names:?}: {}",
                refusal.message
            ));
        }
    }
    assert!(answered.is_empty(), "{}", answered.join("\n"));
}

/// The LLM translator asked what the offline one refuses (`LLM_ENDPOINT`), through `curl` as
/// the host's `complete` would (`host/src/plugins/translator.rs`): the same request body.
mod fallback {
    use std::process::Command;
    use std::sync::Mutex;
    use std::time::Instant;

    use mediaforge_plugin::{CompletionRequest, Refusal};
    use serde_json::{Value, json};

    /// Each case the fallback was asked: its id and whether it answered.
    static ASKED: Mutex<Vec<(String, bool)>> = Mutex::new(Vec::new());
    /// Seconds of each call that reached the model (a final refusal of the offline translator
    /// is given back without one: `translator::final_refusal`).
    static CALLS: Mutex<Vec<f64>> = Mutex::new(Vec::new());

    /// The fallback's answer, when `LLM_ENDPOINT` is set and it answers.
    pub fn ask<T>(
        id: &str,
        translate: impl FnOnce(
            &dyn Fn(CompletionRequest) -> Result<String, String>,
        ) -> Result<T, Refusal>,
    ) -> Option<T> {
        let endpoint = std::env::var("LLM_ENDPOINT").ok()?;
        let answer = translate(&|request| {
            let started = Instant::now();
            let answer = complete(&endpoint, request);
            CALLS.lock().unwrap().push(started.elapsed().as_secs_f64());
            answer
        })
        .ok();
        ASKED
            .lock()
            .unwrap()
            .push((id.to_string(), answer.is_some()));
        answer
    }

    fn complete(endpoint: &str, request: CompletionRequest) -> Result<String, String> {
        let mut body = json!({
            "model": "smollm2",
            "messages": request.messages.iter().map(|m| json!({"role": m.role, "content": m.content})).collect::<Vec<_>>(),
        });
        if let Some(max) = request.max_tokens {
            body["max_tokens"] = json!(max);
        }
        if let Some(t) = request.temperature {
            body["temperature"] = json!(t);
        }
        if let Some(schema) = &request.json_schema {
            let schema: Value = serde_json::from_str(schema).map_err(|e| e.to_string())?;
            body["response_format"] = json!({
                "type": "json_schema",
                "json_schema": { "name": "answer", "schema": schema, "strict": true },
            });
        }
        let file = std::env::temp_dir().join(format!("corpus-llm-{}.json", std::process::id()));
        std::fs::write(&file, body.to_string()).map_err(|e| e.to_string())?;
        let out = Command::new("curl")
            .args([
                "-sS",
                "--max-time",
                "120",
                "-H",
                "content-type: application/json",
            ])
            .arg("--data-binary")
            .arg(format!("@{}", file.display()))
            .arg(format!(
                "{}/chat/completions",
                endpoint.trim_end_matches('/')
            ))
            .output()
            .map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).into_owned());
        }
        let reply: Value = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
        reply["choices"][0]["message"]["content"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("no message content: {reply}"))
    }

    /// What the fallback was asked, answered and cost, and the verdicts of its answers by part
    /// (an answer the command builder's policy refused is counted apart from one ffmpeg
    /// failed on).
    pub fn report(verdicts: &[Value]) {
        let asked = ASKED.lock().unwrap();
        if asked.is_empty() {
            return;
        }
        let mut secs = CALLS.lock().unwrap().clone();
        secs.sort_by(f64::total_cmp);
        let n = secs.len().max(1) as f64;
        eprintln!(
            "\nfallback (LLM translator): asked {} times, the model {} times ({} refusals were final), answered {}",
            asked.len(),
            secs.len(),
            asked.len() - secs.len(),
            asked.iter().filter(|a| a.1).count(),
        );
        if !secs.is_empty() {
            eprintln!(
                "  seconds per model call: median {:.1}, mean {:.1}, max {:.1}",
                secs[secs.len() / 2],
                secs.iter().sum::<f64>() / n,
                secs[secs.len() - 1]
            );
        }
        let mut by: std::collections::BTreeMap<(String, String), usize> = Default::default();
        for v in verdicts {
            let id = v["id"].as_str().unwrap_or("");
            if asked.iter().any(|a| a.0 == id && a.1) {
                let mut verdict = v["verdict"].as_str().unwrap_or("?").to_string();
                if v["why"].as_str().is_some_and(|w| w.starts_with("policy:")) {
                    verdict = "refused by the command builder's policy".into();
                }
                let key = (v["part"].as_str().unwrap_or("?").to_string(), verdict);
                *by.entry(key).or_default() += 1;
            }
        }
        for ((part, verdict), n) in by {
            eprintln!("  the fallback's answers, {part}: {n} {verdict}");
        }
    }
}
