//! The part of the main input used: the trims read into one span.

use super::choose::Mode;
use super::{PlanError, Planned, Planner};
use crate::intents::Trim;
use crate::media::Kind;

/// The part of the main input used, in its own seconds.
#[derive(Debug, Default)]
pub struct Span {
    pub start: f64,
    pub end: Option<f64>,
    /// A stretch cut out of the middle.
    pub cut: Option<(f64, f64)>,
}

impl Planner<'_> {
    /// Reads the trims into one span of the main input.
    pub(super) fn span(&mut self) -> Planned<Span> {
        let w = &self.w;
        let d = self.duration();
        let mut s = Span::default();
        // "keep from 0:02 to 0:05 and from 0:07 to 0:09", "remove from 2 to 4 and from 6 to
        // 8": several parts of the time; the last had been kept alone, or the parts mixed
        // (2026-11-29, fifteenth pass).
        let parts: Vec<String> = w
            .trims
            .iter()
            .filter_map(|t| match t {
                Trim::Range(a, b) | Trim::CutRange(a, b) => Some(format!(
                    "{} s to {} s",
                    crate::numbers::fmt_num(*a),
                    crate::numbers::fmt_num(*b)
                )),
                _ => None,
            })
            .collect();
        if parts.len() > 1 {
            return Err(PlanError::Unsupported(format!(
                "it names {} parts of the time ({}), and keeping or cutting out more than one part is not done in one step; ask for one part at a time",
                parts.len(),
                parts.join(", ")
            )));
        }
        for t in w.trims.clone() {
            match t {
                Trim::KeepHead(n) => s.end = Some(s.start + n),
                // "play it twice so it lasts 4 seconds": the length the repeats make, said as
                // a check; one they do not make is refused, not cut to (2026-12-02). "short.mp4
                // is only 2 s long; play it 3 times" says the input's own length (below).
                Trim::Duration(n)
                    if w.exact_length
                        && let Some(plays) = w.repeat.map(f64::from)
                        && !d.is_some_and(|d| (d - s.start - n).abs() <= 0.5) =>
                {
                    let made = d.map(|d| plays * (d - s.start) / w.speed.unwrap_or(1.0));
                    if !made.is_some_and(|m| (m - n).abs() <= 0.5) {
                        return Err(PlanError::Unsupported(format!(
                            "played {} times, {} does not last the {} s asked",
                            crate::numbers::fmt_num(plays),
                            self.name(),
                            crate::numbers::fmt_num(n)
                        )));
                    }
                }
                // "make it 3 seconds long by speeding it up": the length of the result, which a
                // speed change makes; cutting the input to it first had answered half of it
                // (2026-11-29). The speed that makes it is checked; another is refused, naming
                // the speed that would.
                Trim::Duration(n)
                    if w.exact_length
                        && w.repeat.is_none()
                        && let Some(speed) = w.speed
                        && self.main.kind != Kind::Still =>
                {
                    let Some(d) = d else {
                        return Err(PlanError::Unsupported(format!(
                            "a length of {} s made by a speed change needs the length of {}, which is unknown",
                            crate::numbers::fmt_num(n),
                            self.name()
                        )));
                    };
                    let made = (d - s.start) / speed;
                    if (made - n).abs() > 0.5 {
                        let fmt = |x: f64| crate::numbers::fmt_num((x * 100.0).round() / 100.0);
                        // Cutting first only where the input is long enough for it.
                        let cut_first = if n * speed <= d - s.start {
                            format!(
                                ", or cut it first (\"cut it to {} seconds and speed it up\")",
                                fmt(n * speed)
                            )
                        } else {
                            String::new()
                        };
                        return Err(PlanError::Unsupported(format!(
                            "played at {}x, {} lasts {} s, not the {} s asked; say the speed that makes it {} s long ({}x){cut_first}",
                            fmt(speed),
                            self.name(),
                            fmt(made),
                            fmt(n),
                            fmt(n),
                            fmt((d - s.start) / n),
                        )));
                    }
                }
                // A length asked ("make it 30 seconds long") that the input cannot give: cutting
                // would return it as it is, shorter than asked (2026-11-28).
                Trim::Duration(n)
                    if w.exact_length
                        && d.is_some_and(|d| s.start + n > d + 0.5)
                        && self.main.kind != Kind::Still =>
                {
                    return Err(PlanError::Unsupported(format!(
                        "{} is only {} s long, so it cannot be made {} s long by cutting; say how to make it longer (\"loop it\", \"freeze the last frame for 5 seconds\")",
                        self.name(),
                        crate::numbers::fmt_num(d.unwrap_or(0.0)),
                        crate::numbers::fmt_num(n)
                    )));
                }
                Trim::Duration(n) => s.end = Some(s.start + n),
                // "remove the first 12 seconds" of a 10-second clip leaves nothing: it had been
                // read as "keep them" and answered the whole clip (2026-11-29, fifteenth pass).
                Trim::CutHead(n) | Trim::CutTail(n)
                    if let Some(d) = d
                        && n >= d - 0.05
                        && self.main.kind != Kind::Still =>
                {
                    return Err(self.nothing_left(d, n, matches!(t, Trim::CutHead(_))));
                }
                Trim::CutEnds(a, b)
                    if let Some(d) = d
                        && a + b >= d - 0.05
                        && self.main.kind != Kind::Still =>
                {
                    return Err(PlanError::Unsupported(format!(
                        "{} is only {} s long, so cutting {} s off the start and {} s off the end leaves nothing",
                        self.name(),
                        crate::numbers::fmt_num(d),
                        crate::numbers::fmt_num(a),
                        crate::numbers::fmt_num(b)
                    )));
                }
                Trim::CutHead(n) => s.start += n,
                Trim::KeepTail(n) => {
                    s.start = (self.needs_duration("\"the last ...\"")? - n).max(0.0)
                }
                Trim::CutTail(n) => s.end = Some(self.needs_duration("cutting the end")? - n),
                Trim::CutEnds(a, b) => {
                    s.start += a;
                    s.end = Some(self.needs_duration("cutting both ends")? - b);
                }
                Trim::Range(a, b) => (s.start, s.end) = (a, Some(b)),
                Trim::CutRange(a, b) => s.cut = Some((a, b)),
                Trim::Start(a) => s.start = a,
                Trim::End(b) => s.end = Some(b),
            }
        }
        // A time with no role of its own: "a 10 second preview starting at 0:05" is a length;
        // "at 5s" alone a start.
        let framing = matches!(self.mode, Mode::Frames | Mode::Still);
        let mut unused = None;
        if !framing {
            match (w.loose_time, w.at) {
                (Some(t), _) if s.end.is_none() => s.end = Some(s.start + t),
                (None, Some(a)) if s.end.is_none() && w.trims.is_empty() => s.start = a,
                // "corta do segundo 3 ate o 8" read "second 3 ... until 8": the 3 had been
                // dropped and 0-8 kept.
                (Some(t), _) | (None, Some(t)) => unused = Some(t),
                (None, None) => {}
            }
        }
        if let Some(t) = unused {
            return Err(PlanError::Unsupported(format!(
                "it names {} s, and what it is the time of cannot be told",
                crate::numbers::fmt_num(t)
            )));
        }
        if let Some(d) = d
            && self.main.kind != Kind::Still
        {
            if s.start >= d {
                return Err(PlanError::StartsPastEnd {
                    file: self.name().into(),
                    length: d,
                    start: s.start,
                });
            }
            if s.end.is_some_and(|e| e >= d - 0.001) {
                s.end = None;
            }
        }
        if let Some(e) = s.end
            && e <= s.start
        {
            return Err(PlanError::EndBeforeStart {
                start: s.start,
                end: e,
            });
        }
        if !w.trims.is_empty() {
            self.tags.push("trimmed".into());
        }
        Ok(s)
    }

    /// The refusal of a cut at one end that is as long as the input or longer.
    fn nothing_left(&self, length: f64, n: f64, head: bool) -> PlanError {
        let end = if head { "first" } else { "last" };
        let fmt = crate::numbers::fmt_num;
        PlanError::Unsupported(format!(
            "{} is only {} s long, so cutting off its {end} {} s leaves nothing; to keep that part, say \"keep the {end} {} seconds\"",
            self.name(),
            fmt(length),
            fmt(n),
            fmt(n)
        ))
    }
}
