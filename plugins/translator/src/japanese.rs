//! Japanese instructions, read as English words the grammar knows (`grammar/japanese.txt`).
//!
//! Japanese is written without spaces and puts the verb last and its particles after the words
//! they mark ("clip.mp4 の最初の3秒をカットして": "of clip.mp4, the first 3 seconds, cut"). So
//! a run of Japanese is split by the longest word of the word list at each place; each word
//! becomes its English; a postposition ("から", "まで", "ごとに") goes before the phrase it
//! follows ("from 0:02"); a verb goes to the start of its clause ("cut clip.mp4 first 3
//! seconds"). Characters of no word in the list stay as they are, so the rest of the
//! translator names them as not understood instead of running without them.

use std::collections::HashMap;
use std::sync::OnceLock;

const JAPANESE_TXT: &str = include_str!("../grammar/japanese.txt");

#[derive(Clone, Copy, PartialEq, Debug)]
enum Role {
    Word,
    /// Moved to the start of its clause.
    Verb,
    /// Put before the phrase it follows.
    Post,
    /// Joined to the number before it ("3秒": "3 seconds").
    Unit,
}

/// What a word becomes: one part, or several (`<with & !replace`: "に差し替えて").
struct Entry {
    parts: Vec<Part>,
}

struct Part {
    english: String,
    role: Role,
}

struct Words {
    map: HashMap<String, Entry>,
    longest: usize,
}

fn words() -> &'static Words {
    static W: OnceLock<Words> = OnceLock::new();
    W.get_or_init(|| {
        let mut map = HashMap::new();
        for (n, line) in JAPANESE_TXT.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (ja, en) = line
                .split_once('=')
                .unwrap_or_else(|| panic!("japanese.txt line {}: no `=`", n + 1));
            let parts = || {
                en.split('&')
                    .map(|p| {
                        let p = p.trim();
                        let (role, english) = match p.chars().next() {
                            Some('!') => (Role::Verb, &p[1..]),
                            Some('<') => (Role::Post, &p[1..]),
                            Some('+') => (Role::Unit, &p[1..]),
                            _ => (Role::Word, p),
                        };
                        Part {
                            english: english.trim().to_string(),
                            role,
                        }
                    })
                    .collect()
            };
            for ja in ja.split('|') {
                map.insert(ja.trim().to_string(), Entry { parts: parts() });
            }
        }
        let longest = map.keys().map(|k| k.chars().count()).max().unwrap_or(1);
        Words { map, longest }
    })
}

/// Kana or CJK ideographs: a character of Japanese text.
fn is_japanese(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30ff}' | '\u{4e00}'..='\u{9fff}' | '\u{3005}')
}

pub fn has_japanese(text: &str) -> bool {
    text.chars().any(is_japanese)
}

/// Full-width forms and Japanese punctuation as their ASCII counterparts.
fn ascii_form(c: char) -> Option<&'static str> {
    Some(match c {
        '、' | '，' => ",",
        '。' | '．' => ".",
        '！' => "!",
        '？' => "?",
        '：' => ":",
        '「' | '」' | '『' | '』' | '（' | '）' | '【' | '】' => " ",
        '〜' | '～' => " to ",
        '　' => " ",
        '・' => " ",
        _ => return None,
    })
}

fn widen(c: char) -> char {
    match c {
        '０'..='９' | 'Ａ'..='Ｚ' | 'ａ'..='ｚ' => {
            char::from_u32(c as u32 - 0xFEE0).unwrap_or(c)
        }
        '％' => '%',
        _ => c,
    }
}

#[derive(Default)]
struct Clause {
    verbs: Vec<String>,
    pieces: Vec<String>,
}

impl Clause {
    fn text(&mut self) -> String {
        let mut all = std::mem::take(&mut self.verbs);
        all.extend(std::mem::take(&mut self.pieces));
        all.retain(|p| !p.trim().is_empty());
        all.join(" ")
    }
}

/// The instruction with its Japanese read as English words (other text kept as it is).
pub fn to_english(text: &str) -> String {
    let w = words();
    let chars: Vec<char> = text.chars().map(widen).collect();
    let mut out = String::new();
    let mut clause = Clause::default();
    let mut latin = String::new();
    let mut unknown = String::new();
    let flush = |buf: &mut String, clause: &mut Clause| {
        if !buf.trim().is_empty() {
            clause.pieces.push(buf.trim().to_string());
        }
        buf.clear();
    };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if let Some(p) = ascii_form(c) {
            flush(&mut latin, &mut clause);
            flush(&mut unknown, &mut clause);
            if matches!(p, "," | "." | "!" | "?") {
                out.push_str(&clause.text());
                out.push_str(p);
                out.push(' ');
            } else {
                latin.push_str(p);
            }
            i += 1;
            continue;
        }
        if !is_japanese(c) {
            flush(&mut unknown, &mut clause);
            if matches!(c, ',' | '.' | '!' | '?' | ';')
                && !chars.get(i + 1).is_some_and(|n| n.is_ascii_alphanumeric())
            {
                flush(&mut latin, &mut clause);
                out.push_str(&clause.text());
                out.push(c);
                out.push(' ');
            } else {
                latin.push(c);
            }
            i += 1;
            continue;
        }
        // The longest word of the list starting here.
        let found = (1..=w.longest.min(chars.len() - i)).rev().find_map(|len| {
            let s: String = chars[i..i + len].iter().collect();
            w.map.get(&s).map(|e| (len, e))
        });
        let Some((len, entry)) = found else {
            flush(&mut latin, &mut clause);
            unknown.push(c);
            i += 1;
            continue;
        };
        flush(&mut unknown, &mut clause);
        for part in &entry.parts {
            match part.role {
                Role::Unit => {
                    // "3秒": the number written just before.
                    let number = latin.trim_end().to_string();
                    if !number.is_empty() && number.ends_with(|c: char| c.is_ascii_digit()) {
                        latin = format!("{number} {}", part.english);
                        flush(&mut latin, &mut clause);
                    } else {
                        flush(&mut latin, &mut clause);
                        clause.pieces.push(part.english.clone());
                    }
                }
                Role::Post => {
                    flush(&mut latin, &mut clause);
                    // "横幅は320pxで" (the width at 320px): "で" after a figure is not "as"
                    // (2026-11-29).
                    let after_figure = clause
                        .pieces
                        .last()
                        .is_some_and(|p| p.starts_with(|c: char| c.is_ascii_digit()));
                    if part.english == "as" && after_figure {
                        continue;
                    }
                    let at = clause.pieces.len().saturating_sub(1);
                    if clause.pieces.is_empty() {
                        clause.pieces.push(part.english.clone());
                    } else {
                        clause.pieces.insert(at, part.english.clone());
                    }
                }
                Role::Verb => {
                    flush(&mut latin, &mut clause);
                    if !part.english.is_empty() {
                        clause.verbs.push(part.english.clone());
                    }
                    // A verb ends its clause ("消して、音声も消して": two requests).
                    let text = clause.text();
                    if !text.is_empty() {
                        out.push_str(&text);
                        out.push_str(" and ");
                    }
                }
                Role::Word => {
                    flush(&mut latin, &mut clause);
                    // "2秒と6秒": "と" between two times is "and", not "with".
                    let after_time = clause
                        .pieces
                        .last()
                        .is_some_and(|p| p.ends_with("seconds") || p.ends_with("minutes"));
                    let english = if part.english == "with" && after_time {
                        "and"
                    } else {
                        part.english.as_str()
                    };
                    if !english.is_empty() {
                        clause.pieces.push(english.to_string());
                    }
                }
            }
        }
        i += len;
    }
    flush(&mut latin, &mut clause);
    flush(&mut unknown, &mut clause);
    out.push_str(&clause.text());
    let out = out.trim().to_string();
    // A clause ended by a verb and nothing after it: no dangling "and".
    out.strip_suffix(" and")
        .map(str::to_string)
        .unwrap_or(out)
        .replace(" and ,", ",")
        .replace(" and .", ".")
}

#[cfg(test)]
mod tests {
    use super::to_english;

    #[test]
    fn verbs_go_first_and_postpositions_before_their_phrase() {
        assert_eq!(
            to_english("clip.mp4 の最初の3秒をカットして"),
            "remove clip.mp4 first 3 seconds"
        );
        assert_eq!(
            to_english("0:02 から 0:06 までを切り出して"),
            "keep from 0:02 until 0:06"
        );
        // Words not in the list stay, to be named as not understood.
        assert!(to_english("ドラゴンにして").contains("ドラゴン"));
    }
}
