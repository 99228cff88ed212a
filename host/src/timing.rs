//! Where a request's time goes: the pipeline's stages mark their ends on the request's own
//! clock (a task-local set by `api::access_log`), and the answer carries the breakdown as the
//! standard `Server-Timing` header (`resolve;dur=0.41, ffmpeg;dur=61.2, …`, milliseconds).
//! `make bench` reads it to show what a small job costs beyond ffmpeg; a browser's developer
//! tools show it too. Outside a request (a worker's job) marks go nowhere.

use std::cell::RefCell;
use std::future::Future;
use std::time::{Duration, Instant};

/// A request's stages so far: each the time since the previous mark (repeats add up).
struct Clock {
    last: Instant,
    stages: Vec<(&'static str, Duration)>,
}

tokio::task_local! {
    static CLOCK: RefCell<Clock>;
}

/// Runs `work` with a clock of its own; returns its output and the stages it marked.
pub async fn measured<F: Future>(work: F) -> (F::Output, Vec<(&'static str, Duration)>) {
    let clock = RefCell::new(Clock {
        last: Instant::now(),
        stages: Vec::new(),
    });
    let (out, clock) = CLOCK
        .scope(clock, async move {
            let out = work.await;
            (
                out,
                CLOCK.with(|c| std::mem::take(&mut c.borrow_mut().stages)),
            )
        })
        .await;
    (out, clock)
}

/// Ends the stage `name` now: the time since the previous mark (or the request's start) goes
/// to it.
pub fn mark(name: &'static str) {
    let _ = CLOCK.try_with(|c| {
        let mut c = c.borrow_mut();
        let now = Instant::now();
        let spent = now - c.last;
        c.last = now;
        match c.stages.iter_mut().find(|(n, _)| *n == name) {
            Some((_, d)) => *d += spent,
            None => c.stages.push((name, spent)),
        }
    });
}

/// The `Server-Timing` value: each stage, then `total` (the request's whole time, so what no
/// stage claims is `total` minus the rest).
pub fn header(stages: &[(&'static str, Duration)], total: Duration) -> String {
    let ms = |d: &Duration| d.as_secs_f64() * 1000.0;
    stages
        .iter()
        .map(|(n, d)| format!("{n};dur={:.2}", ms(d)))
        .chain(std::iter::once(format!("total;dur={:.2}", ms(&total))))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn stages_add_up_and_marks_outside_a_request_go_nowhere() {
        mark("nowhere");
        let ((), stages) = measured(async {
            tokio::time::sleep(Duration::from_millis(5)).await;
            mark("a");
            mark("b");
            tokio::time::sleep(Duration::from_millis(5)).await;
            mark("a");
        })
        .await;
        let names: Vec<_> = stages.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, ["a", "b"]);
        assert!(
            stages[0].1 >= Duration::from_millis(10),
            "{:?}",
            stages[0].1
        );
        let h = header(&stages, Duration::from_millis(12));
        // However long the stage took on a loaded machine: the header says the same.
        let a_ms = stages[0].1.as_secs_f64() * 1000.0;
        assert!(
            h.starts_with(&format!("a;dur={a_ms:.2},")) && h.ends_with("total;dur=12.00"),
            "{h}"
        );
    }
}
