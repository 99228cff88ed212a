//! Shows how an instruction is read and what it becomes. Inputs are real files, probed with
//! ffprobe; without any, only the reading is shown.
//!
//! `cargo run --example explain -- [FILE...] -- "instruction"`
//! `cargo run --example explain -- --probe "how long is it?"`

#[path = "../tests/support/mod.rs"]
mod support;

use std::path::Path;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--probe") {
        let text = args[1..].join(" ");
        let (asked, left) = translator::probe::understand(&text);
        println!("asked: {asked:?}\nnot understood: {left:?}");
        match translator::translate_probe(&text) {
            Ok(cfg) => println!("ffprobe {}", support::ffprobe_argv(&cfg).join(" ")),
            Err(r) => println!("refused: {}", r.message),
        }
        return;
    }
    let split = args.iter().position(|a| a == "--");
    let (files, text) = match split {
        Some(i) => (&args[..i], args[i + 1..].join(" ")),
        None => (&args[..0], args.join(" ")),
    };
    // The first call reads the grammar, as a fresh component instance does on every call.
    let cold = std::time::Instant::now();
    let u = translator::intents::understand(&text);
    println!(
        "read (with grammar loading) in {:.2} ms",
        cold.elapsed().as_secs_f64() * 1000.0
    );
    for (intent, words) in &u.heard {
        println!("{words:>32}  =>  {intent:?}");
    }
    println!("not understood: {:?}", u.leftovers);
    if files.is_empty() {
        return;
    }
    let facts: Vec<_> = files.iter().map(|f| support::facts(Path::new(f))).collect();
    let dir = Path::new(&files[0]).parent().unwrap_or(Path::new("."));
    let start = std::time::Instant::now();
    let result = translator::translate_task(&text, &facts);
    let took = start.elapsed();
    match result {
        Ok(task) => println!(
            "ffmpeg {}",
            support::ffmpeg_argv(&task, dir, Path::new("OUT")).join(" ")
        ),
        Err(r) => println!("refused: {}", r.message),
    }
    println!("translated in {:.2} ms", took.as_secs_f64() * 1000.0);
}
