//! Runs every case of the product's nl-examples.json (tests/fixtures/ in the repository,
//! else shared/examples/) and of this crate's tests/cases.json through
//! ffmpeg on lavfi-made fixtures and checks the outputs with ffprobe. Slow and needs
//! ffmpeg 5.1 with libx264/libvpx/...: `cargo test -p translator -- --ignored`
//! (`CASE=id1,id2` runs only those cases).

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde_json::Value;
use support::*;

fn examples_file() -> Option<PathBuf> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    [
        std::env::var("NL_EXAMPLES").ok().map(PathBuf::from),
        Some(manifest.join("../../tests/fixtures/nl-examples.json")),
        Some(manifest.join("../../../shared/examples/nl-examples.json")),
    ]
    .into_iter()
    .flatten()
    .find(|p| p.exists())
}

fn cases() -> Vec<(String, Value)> {
    let mut all = Vec::new();
    let files = [
        examples_file(),
        Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases.json")),
    ];
    for file in files.into_iter().flatten() {
        let text = std::fs::read_to_string(&file).unwrap();
        let j: Value = serde_json::from_str(&text).unwrap();
        let origin = file.file_name().unwrap().to_string_lossy().into_owned();
        for c in j["cases"].as_array().unwrap() {
            all.push((origin.clone(), c.clone()));
        }
    }
    all
}

/// Runs one case; returns the list of failures (empty: passed).
fn run_case(case: &Value, fixtures: &Path, work: &Path) -> Vec<String> {
    let id = case["id"].as_str().unwrap();
    let instructions = case["instructions"].as_str().unwrap();
    let inputs = case_inputs(case);
    let facts: Vec<_> = inputs.iter().map(|n| facts(&fixtures.join(n))).collect();
    let expect = &case["expect"];
    let refused = expect["status"].as_u64() == Some(400);
    if case["endpoint"] == "probe" {
        return match translator::translate_probe(instructions) {
            Err(r) if refused => {
                assert!(!r.message.is_empty());
                vec![]
            }
            Err(r) => vec![format!("refused: {}", r.message)],
            Ok(_) if refused => vec!["should have been refused".into()],
            Ok(cfg) => {
                let result = ffprobe_json(&fixtures.join(inputs[0]), &ffprobe_argv(&cfg));
                let mut bad = Vec::new();
                for p in expect["result_has"]
                    .as_array()
                    .map(|a| a.as_slice())
                    .unwrap_or(&[])
                {
                    if lookup(&result, p.as_str().unwrap()).is_none() {
                        bad.push(format!("result lacks {p} ({result})"));
                    }
                }
                if let Some(eq) = expect["equals"].as_object() {
                    for (p, want) in eq {
                        let got = lookup(&result, p);
                        if got != Some(want) {
                            bad.push(format!("{p} = {got:?}, expected {want}"));
                        }
                    }
                }
                bad
            }
        };
    }
    let task = match translator::translate_task(instructions, &facts) {
        Err(r) if refused => {
            assert!(!r.message.is_empty());
            return vec![];
        }
        Err(r) => return vec![format!("refused: {}", r.message)],
        Ok(_) if refused => return vec!["should have been refused".into()],
        Ok(t) => t,
    };
    let out = work.join(id);
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    let argv = match policy_argv(&task, fixtures, &out) {
        Ok(a) => a,
        Err(e) => return vec![format!("{e}\n  task: {task:?}")],
    };
    let run = Command::new("ffmpeg").args(&argv).output().unwrap();
    if !run.status.success() {
        return vec![format!(
            "ffmpeg failed: {}\n  argv: {argv:?}",
            String::from_utf8_lossy(&run.stderr)
        )];
    }
    let files = outputs(&task, &out);
    let bad = check_outputs(expect, &files, &fixtures.join(inputs[0]));
    bad.into_iter()
        .map(|b| format!("{b}\n  argv: {argv:?}"))
        .collect()
}

#[test]
#[ignore = "runs ffmpeg; slow"]
fn examples_produce_what_they_promise() {
    assert!(have_ffmpeg(), "ffmpeg is required (make setup installs it)");
    let work = std::env::temp_dir().join("translator-ffmpeg-check");
    let fixtures = work.join("fixtures");
    make_fixtures(&fixtures);
    let only = std::env::var("CASE").ok();
    let mut failures = Vec::new();
    let mut passed = 0;
    for (origin, case) in cases() {
        let id = case["id"].as_str().unwrap().to_string();
        if only
            .as_deref()
            .is_some_and(|o| !o.split(',').any(|o| id == o))
        {
            continue;
        }
        let t = Instant::now();
        let bad = run_case(&case, &fixtures, &work);
        let status = if bad.is_empty() { "ok" } else { "FAIL" };
        eprintln!(
            "{status:4} {origin}:{id} ({:.1} s)",
            t.elapsed().as_secs_f64()
        );
        if bad.is_empty() {
            passed += 1;
        } else {
            for b in &bad {
                eprintln!("     {b}");
            }
            failures.push(id);
        }
    }
    eprintln!("{passed} passed, {} failed: {failures:?}", failures.len());
    assert!(failures.is_empty(), "failed: {failures:?}");
}
