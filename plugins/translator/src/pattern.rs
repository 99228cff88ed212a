//! The pattern language of `grammar/*.txt`, and the matcher.
//!
//! A pattern is a list of parts separated by spaces:
//! - `word`, `a|b|c`, `frame_rate` — literal words (alternatives with `|`; `_` joins the
//!   words of a multi-word alternative; an alternative may be an `@class`);
//! - `@class` — any phrase of a word class from `lexicon.txt`;
//! - `$slot` — a typed value, captured: `$time`, `$num`, `$res`, `$fmt`, … (see [`Slot`]);
//! - `..` — a gap of up to [`GAP`] words, never across punctuation, `@barrier`, `@forbid` or `@relative` words;
//! - a part ending in `?` is optional.
//!
//! Between parts, `@filler` words ("the", "it", "video", …) are skipped, so
//! `@remove @audio` also matches "remove the audio".

use crate::lexicon::{Lexicon, Phrase, lexicon};
use crate::numbers::Value;
use crate::tokens::{Tok, Token};

/// The most words a `..` gap skips.
pub const GAP: usize = 4;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Slot {
    /// A bare number.
    Num,
    /// A time, or a bare number read as seconds.
    T,
    /// A time with a unit or in clock form.
    Time,
    Pct,
    Mult,
    /// A factor: `2x`, `50%`, `half`, or a bare number.
    Factor,
    /// A loudness change: a factor or decibels.
    Level,
    Rate,
    Hz,
    /// A sample rate: `16 kHz`, `16000`, `44.1k`.
    SRate,
    Bitrate,
    Bytes,
    Dim,
    Res,
    Px,
    /// A length in pixels, with or without `px`.
    Len,
    Deg,
    Db,
    Lufs,
    Frames,
    Ord,
    /// `16:9`.
    Ratio,
    /// A file name written in the instruction.
    File,
}

const SLOTS: &[(&str, Slot)] = &[
    ("num", Slot::Num),
    ("t", Slot::T),
    ("time", Slot::Time),
    ("pct", Slot::Pct),
    ("mult", Slot::Mult),
    ("factor", Slot::Factor),
    ("level", Slot::Level),
    ("rate", Slot::Rate),
    ("hz", Slot::Hz),
    ("srate", Slot::SRate),
    ("bitrate", Slot::Bitrate),
    ("bytes", Slot::Bytes),
    ("dim", Slot::Dim),
    ("res", Slot::Res),
    ("px", Slot::Px),
    ("len", Slot::Len),
    ("deg", Slot::Deg),
    ("db", Slot::Db),
    ("lufs", Slot::Lufs),
    ("frames", Slot::Frames),
    ("ord", Slot::Ord),
    ("ratio", Slot::Ratio),
    ("file", Slot::File),
];

impl Slot {
    fn accepts(self, v: &Value) -> bool {
        use Value as V;
        match self {
            Slot::Num => matches!(v, V::Num(_)),
            Slot::T => matches!(v, V::Time(_) | V::Clock(_)) || matches!(v, V::Num(n) if *n >= 0.0),
            Slot::Time => matches!(v, V::Time(_) | V::Clock(_)),
            Slot::Pct => matches!(v, V::Pct(_)),
            Slot::Mult => matches!(v, V::Mult(_)),
            Slot::Factor => matches!(v, V::Mult(_) | V::Pct(_) | V::Num(_)),
            Slot::Level => matches!(v, V::Mult(_) | V::Pct(_) | V::Num(_) | V::Db(_)),
            Slot::Rate => matches!(v, V::Rate(_)),
            Slot::Hz => matches!(v, V::Hz(_)),
            Slot::SRate => matches!(v, V::Hz(_) | V::Num(_) | V::Bitrate(_)),
            Slot::Bitrate => matches!(v, V::Bitrate(_)),
            Slot::Bytes => matches!(v, V::Bytes(_)),
            Slot::Dim => matches!(v, V::Dim(..)),
            Slot::Res => matches!(v, V::Res(_)),
            Slot::Px => matches!(v, V::Px(_)),
            Slot::Len => matches!(v, V::Px(_)) || matches!(v, V::Num(n) if *n >= 0.0),
            Slot::Deg => matches!(v, V::Deg(_) | V::Num(_)),
            Slot::Db => matches!(v, V::Db(_)),
            Slot::Lufs => matches!(v, V::Lufs(_)),
            Slot::Frames => matches!(v, V::Frames(_)),
            Slot::Ord => matches!(v, V::Ord(_)),
            Slot::Ratio => matches!(v, V::Clock(p) if p.len() == 2 && p[1] > 0.0),
            Slot::File => false,
        }
    }
}

#[derive(Clone, Debug)]
enum Elem {
    Words(Vec<Phrase>),
    Class(String),
    Slot(Slot),
    /// A `$slot` of lexicon value words (`$fmt`, `$corner`, …).
    Values(String),
    Gap,
}

#[derive(Clone, Debug)]
struct Part {
    elem: Elem,
    optional: bool,
}

#[derive(Clone, Debug)]
pub struct Pattern {
    parts: Vec<Part>,
}

/// What a `$slot` captured.
#[derive(Clone, Debug, PartialEq)]
pub enum Cap {
    Value(Value),
    /// The key of a lexicon value phrase (`webm`, `top-right`).
    Key(String),
    File(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Capture {
    pub cap: Cap,
    /// The word just before the capture ("by" in "slow down by 50%").
    pub prev: Option<String>,
    /// The captured token as written (normalized): "second 5" for the point 5 s in.
    pub text: String,
}

#[derive(Clone, Debug)]
pub struct Match {
    pub start: usize,
    /// Tokens matched by parts (not those a gap skipped).
    pub used: Vec<usize>,
    pub captures: Vec<Capture>,
}

impl Pattern {
    pub fn compile(src: &str, lex: &Lexicon) -> Result<Pattern, String> {
        let mut parts = Vec::new();
        for raw in src.split_whitespace() {
            let (body, optional) = match raw.strip_suffix('?') {
                Some(b) if !b.is_empty() => (b, true),
                _ => (raw, false),
            };
            let elem = if body == ".." {
                Elem::Gap
            } else if let Some(name) = body.strip_prefix('@').filter(|n| !n.contains('|')) {
                if !lex.classes.contains_key(name) {
                    return Err(format!("unknown class @{name}"));
                }
                Elem::Class(name.into())
            } else if let Some(name) = body.strip_prefix('$') {
                match SLOTS.iter().find(|(n, _)| *n == name) {
                    Some((_, s)) => Elem::Slot(*s),
                    None if lex.values.contains_key(name) => Elem::Values(name.into()),
                    None => return Err(format!("unknown slot ${name}")),
                }
            } else {
                // Alternatives: words, multi_words, or @classes spelled out.
                let mut alts: Vec<Phrase> = Vec::new();
                for alt in body.split('|') {
                    match alt.strip_prefix('@') {
                        Some(name) => alts.extend(
                            lex.classes
                                .get(name)
                                .ok_or_else(|| format!("unknown class @{name}"))?
                                .iter()
                                .cloned(),
                        ),
                        None => alts.push(alt.split('_').map(str::to_string).collect()),
                    }
                }
                Elem::Words(alts)
            };
            parts.push(Part { elem, optional });
        }
        if parts.is_empty() || matches!(parts[0].elem, Elem::Gap) {
            return Err(format!(
                "pattern `{src}` must start with a word, class or slot"
            ));
        }
        Ok(Pattern { parts })
    }

    /// The first match starting at or after `from` that uses no consumed token.
    pub fn find(&self, tokens: &[Token], consumed: &[bool], from: usize) -> Option<Match> {
        let m = Matcher {
            parts: &self.parts,
            tokens,
            consumed,
            lex: lexicon(),
        };
        (from..tokens.len())
            .filter(|&s| !consumed[s])
            .find_map(|start| {
                let mut st = State {
                    used: Vec::new(),
                    captures: Vec::new(),
                };
                m.go(0, start, &mut st).map(|_| Match {
                    start,
                    used: st.used,
                    captures: st.captures,
                })
            })
    }
}

struct Matcher<'a> {
    parts: &'a [Part],
    tokens: &'a [Token],
    consumed: &'a [bool],
    lex: &'a Lexicon,
}

struct State {
    used: Vec<usize>,
    captures: Vec<Capture>,
}

impl Matcher<'_> {
    fn free(&self, i: usize) -> bool {
        i < self.tokens.len() && !self.consumed[i]
    }

    /// A `@forbid` word ("without", "not", "no"): a gap never skips one, so "export it
    /// without the audio" is not "export the audio" (2026-11-30 held-out set). Nor a
    /// `@relative` one: "give me an mp4 where the audio is stereo" is not "give me the audio".
    fn forbids(&self, i: usize) -> bool {
        let t = &self.tokens[i];
        t.kind == Tok::Word
            && ["forbid", "relative"].iter().any(|class| {
                self.lex.classes[*class]
                    .iter()
                    .any(|p| p.len() == 1 && p[0] == t.norm)
            })
    }

    fn is_barrier(&self, i: usize) -> bool {
        let t = &self.tokens[i];
        t.kind == Tok::Sep
            || (t.kind == Tok::Word
                && self.lex.classes["barrier"]
                    .iter()
                    .any(|p| p.len() == 1 && p[0] == t.norm))
    }

    /// Whether `phrase` is spelled by the free tokens from `at`.
    fn spells(&self, phrase: &[String], at: usize) -> bool {
        phrase
            .iter()
            .enumerate()
            .all(|(k, w)| self.free(at + k) && self.tokens[at + k].norm == *w)
    }

    /// The ways `elem` can match at `at`: (length, capture), longest first.
    fn candidates(&self, elem: &Elem, at: usize) -> Vec<(usize, Option<Cap>)> {
        if !self.free(at) {
            return Vec::new();
        }
        let phrases = |list: &[Phrase]| {
            let mut c: Vec<(usize, Option<Cap>)> = list
                .iter()
                .filter(|p| self.spells(p, at))
                .map(|p| (p.len(), None))
                .collect();
            c.sort_by_key(|(n, _)| std::cmp::Reverse(*n));
            c
        };
        match elem {
            Elem::Words(alts) => phrases(alts),
            Elem::Class(name) => phrases(&self.lex.classes[name]),
            Elem::Values(slot) => self.lex.values[slot]
                .iter()
                .filter(|(p, _)| self.spells(p, at))
                .map(|(p, k)| (p.len(), Some(Cap::Key(k.clone()))))
                .collect(),
            Elem::Slot(Slot::File) => match &self.tokens[at].kind {
                Tok::File => vec![(1, Some(Cap::File(self.tokens[at].norm.clone())))],
                _ => Vec::new(),
            },
            Elem::Slot(slot) => match &self.tokens[at].kind {
                Tok::Value(v) if slot.accepts(v) => vec![(1, Some(Cap::Value(v.clone())))],
                _ => Vec::new(),
            },
            Elem::Gap => Vec::new(),
        }
    }

    fn go(&self, pi: usize, ti: usize, st: &mut State) -> Option<usize> {
        self.go_strict(pi, ti, st, false)
    }

    /// Matches parts `pi..` from token `ti`; `strict` makes part `pi` required.
    fn go_strict(&self, pi: usize, ti: usize, st: &mut State, strict: bool) -> Option<usize> {
        let Some(part) = self.parts.get(pi) else {
            return Some(ti);
        };
        if let Elem::Gap = part.elem {
            // Shortest gap first, but an optional part after the gap is looked for across
            // the whole gap before it is given up ("speed it up by 50%").
            let next_optional = self.parts.get(pi + 1).is_some_and(|p| p.optional);
            for t in ti..=ti + GAP {
                if let Some(end) = self.go_strict(pi + 1, t, st, next_optional) {
                    return Some(end);
                }
                if t >= self.tokens.len() || self.is_barrier(t) || self.forbids(t) {
                    break;
                }
            }
            return if next_optional {
                self.go(pi + 2, ti, st)
            } else {
                None
            };
        }
        let mut t = ti;
        loop {
            for (len, cap) in self.candidates(&part.elem, t) {
                let (nu, nc) = (st.used.len(), st.captures.len());
                st.used.extend(t..t + len);
                if let Some(cap) = cap {
                    let prev = t.checked_sub(1).map(|p| self.tokens[p].norm.clone());
                    let text = self.tokens[t..t + len]
                        .iter()
                        .map(|t| t.norm.as_str())
                        .collect::<Vec<_>>()
                        .join(" ");
                    st.captures.push(Capture { cap, prev, text });
                }
                if let Some(end) = self.go(pi + 1, t + len, st) {
                    return Some(end);
                }
                st.used.truncate(nu);
                st.captures.truncate(nc);
            }
            // Skip a filler word between parts, never before the first.
            let filler = self.free(t)
                && self.tokens[t].kind == Tok::Word
                && self.lex.is_filler(&self.tokens[t].norm);
            if pi == 0 || !filler {
                break;
            }
            t += 1;
        }
        if part.optional && !strict {
            self.go(pi + 1, ti, st)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::tokenize;

    fn matches(pattern: &str, text: &str) -> Option<Vec<Capture>> {
        let p = Pattern::compile(pattern, lexicon()).unwrap();
        let toks = tokenize(text);
        let consumed = vec![false; toks.len()];
        p.find(&toks, &consumed, 0).map(|m| m.captures)
    }

    #[test]
    fn fillers_gaps_and_slots() {
        assert!(matches("@remove @audio", "remove the audio track").is_some());
        assert!(matches("@remove @audio", "please strip out all the sound").is_some());
        assert!(matches("speed .. up .. $factor?", "Speed the video up 2x").is_some());
        assert!(matches("@remove .. @audio", "remove the video and keep the audio").is_none());
        let caps = matches("from $t to $t", "trim from 00:00:02 to 00:00:06").unwrap();
        assert_eq!(caps.len(), 2);
        let caps = matches("@slower .. $factor", "make it slower by 50%").unwrap();
        assert_eq!(caps[0].prev.as_deref(), Some("by"));
        let caps = matches("to|as|into $fmt", "save it as a WebM").unwrap();
        assert_eq!(caps[0].cap, Cap::Key("webm".into()));
        assert!(matches("black_and_white", "make it black and white").is_some());
    }

    #[test]
    fn compile_errors() {
        assert!(Pattern::compile("@nosuchclass", lexicon()).is_err());
        assert!(Pattern::compile("$nosuchslot", lexicon()).is_err());
        assert!(Pattern::compile(".. x", lexicon()).is_err());
    }
}
