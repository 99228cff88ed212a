//! Instruction text → tokens: words (normalized spelling), numbers with their meaning
//! (`numbers::Value`), file names, and separators (punctuation between requests).

use crate::lexicon::lexicon;
use crate::numbers::{self, Unit, Value};

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Word,
    Value(Value),
    /// A file name written in the instruction ("logo.png"); `norm` holds it lower-cased.
    File,
    /// `,` `;` `.` `!` `?`: a gap in a pattern never crosses one.
    Sep,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub kind: Tok,
    /// The normalized word (spelling applied), or the lower-cased text of a value.
    pub norm: String,
}

impl Token {
    fn word(w: &str) -> Token {
        Token {
            kind: Tok::Word,
            norm: w.into(),
        }
    }
    fn value(v: Value, text: &str) -> Token {
        Token {
            kind: Tok::Value(v),
            norm: text.into(),
        }
    }
    pub fn value_ref(&self) -> Option<&Value> {
        match &self.kind {
            Tok::Value(v) => Some(v),
            _ => None,
        }
    }
    pub fn is_word(&self, w: &str) -> bool {
        self.kind == Tok::Word && self.norm == w
    }
    fn num(&self) -> Option<f64> {
        match self.kind {
            Tok::Value(Value::Num(n)) => Some(n),
            _ => None,
        }
    }
    /// A number written as a word ("twenty"), which may combine with the next one.
    fn word_num(&self) -> Option<f64> {
        self.num()
            .filter(|_| self.norm.chars().all(|c| c.is_ascii_alphabetic()))
    }
}

/// Words the tokenizer itself reads ("a couple of", "several"), known to the typo reader.
pub const TOKENIZER_WORDS: &[&str] = &["couple", "several", "few", "half", "every", "each"];

/// After "a second", these words mean "the second (one)", not one second.
const ORDINAL_FOLLOWERS: &[&str] = &[
    "audio",
    "track",
    "input",
    "file",
    "video",
    "clip",
    "image",
    "copy",
    "version",
    "one",
    "stream",
    "output",
    "layer",
    "time",
    "pass",
    "language",
    "soundtrack",
    "logo",
    "picture",
];

/// Whether the instruction holds a word `languages.txt` reads as English: it is written in
/// another language.
pub fn is_foreign(instruction: &str) -> bool {
    let lex = lexicon();
    instruction
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .any(|w| lex.foreign.contains(w))
}

pub fn tokenize(instruction: &str) -> Vec<Token> {
    let lower = instruction.to_lowercase();
    // Japanese is read as English words first (no spaces, the verb last: `japanese`).
    let lower = if crate::japanese::has_japanese(&lower) {
        crate::japanese::to_english(&lower)
    } else {
        lower
    };
    let text = rewrite(&decimal_commas(&lower));
    // In another language a word close to an English keyword is another word ("resto" is not
    // "retro"): misspellings are corrected in English instructions only.
    let typos = !is_foreign(instruction);
    let mut raw = Vec::new();
    for chunk in chunks(&text) {
        match chunk {
            Chunk::Sep => raw.push(Token {
                kind: Tok::Sep,
                norm: ",".into(),
            }),
            Chunk::Text(t) => split_chunk(&t, &mut raw, typos),
        }
    }
    combine(raw)
}

/// "1,5x", "0,75": a decimal comma, as most of Europe writes it, becomes a point. Only one or
/// two digits after it and none around: "1,500" (thousands) and "1,2,3" (a list) stay.
fn decimal_commas(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let digit = |i: usize| c.get(i).is_some_and(char::is_ascii_digit);
    let mut out = String::with_capacity(text.len());
    for (i, ch) in c.iter().enumerate() {
        let decimal = *ch == ','
            && i > 0
            && digit(i - 1)
            && digit(i + 1)
            && {
                let mut start = i - 1;
                while start > 0 && digit(start - 1) {
                    start -= 1;
                }
                start == 0 || !matches!(c[start - 1], ',' | '.')
            }
            && {
                let mut end = i + 1;
                while digit(end) {
                    end += 1;
                }
                end - i - 1 <= 2 && !(c.get(end) == Some(&',') && digit(end + 1))
            };
        out.push(if decimal { '.' } else { *ch });
    }
    out
}

/// Applies the lexicon's rewrites at word boundaries, so "h 264" does not fire inside
/// "with 264".
fn rewrite(text: &str) -> String {
    let mut s = format!(" {text} ");
    for (from, to) in &lexicon().rewrites {
        let mut out = String::with_capacity(s.len());
        let mut rest = s.as_str();
        while let Some(i) = rest.find(from.as_str()) {
            let before = rest[..i].chars().next_back();
            let after = rest[i + from.len()..].chars().next();
            let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
            let starts_alnum = from.starts_with(|c: char| c.is_alphanumeric());
            let ends_alnum = from.ends_with(|c: char| c.is_alphanumeric());
            if (!starts_alnum || boundary(before)) && (!ends_alnum || boundary(after)) {
                out.push_str(&rest[..i]);
                out.push_str(to);
            } else {
                out.push_str(&rest[..i + from.len()]);
            }
            rest = &rest[i + from.len()..];
        }
        out.push_str(rest);
        s = out;
    }
    s
}

enum Chunk {
    Text(String),
    Sep,
}

fn chunks(text: &str) -> Vec<Chunk> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let flush = |cur: &mut String, out: &mut Vec<Chunk>| {
        if !cur.is_empty() {
            // A full stop or colon ending a chunk ends a sentence, not a number or name.
            let ends_sentence = cur.ends_with('.');
            let t = cur
                .trim_end_matches(['.', ':'])
                .trim_matches(['\'', '"'])
                .to_string();
            if !t.is_empty() {
                out.push(Chunk::Text(t));
            }
            if ends_sentence {
                out.push(Chunk::Sep);
            }
            cur.clear();
        }
    };
    for c in text.chars() {
        if c.is_alphanumeric() || ".:%°_'-+/&×*#".contains(c) {
            cur.push(c);
        } else {
            flush(&mut cur, &mut out);
            if ",;!?()\n".contains(c) {
                out.push(Chunk::Sep);
            }
        }
    }
    flush(&mut cur, &mut out);
    out
}

/// "clip.mp4", "my_logo.png": a dot followed by a short extension with a letter, and a
/// stem that is not a number ("2.5s" is a time).
fn is_file_name(s: &str) -> bool {
    let Some((stem, ext)) = s.rsplit_once('.') else {
        return false;
    };
    !stem.is_empty()
        && stem.chars().any(|c| c.is_alphabetic() || c == '_')
        && (2..=5).contains(&ext.len())
        && ext.chars().all(|c| c.is_ascii_alphanumeric())
        && ext.chars().any(|c| c.is_ascii_alphabetic())
}

fn split_chunk(chunk: &str, out: &mut Vec<Token>, typos: bool) {
    if is_file_name(chunk) {
        out.push(Token {
            kind: Tok::File,
            norm: chunk.into(),
        });
        return;
    }
    // "it's", "that's", "there's": a pronoun and "is" (2026-11-27: "it's too quiet" describes
    // the file, `grammar::described`); elsewhere "'s" is a possessive ("the video's audio").
    if let Some(stem) = chunk.strip_suffix("'s")
        && [
            "it", "that", "there", "here", "what", "he", "she", "who", "where",
        ]
        .contains(&stem)
    {
        out.push(Token::word(stem));
        out.push(Token::word("is"));
        return;
    }
    let chunk = chunk.strip_suffix("'s").unwrap_or(chunk).replace('\'', "");
    // ".mov", ".mp4": an extension written on its own.
    let chunk = match chunk.strip_prefix('.') {
        Some(ext) if ext.chars().all(|c| c.is_ascii_alphanumeric()) => ext.to_string(),
        _ => chunk,
    };
    // Hyphens: "2-4" is a range, "-14" a sign, "top-right" two words.
    let chars: Vec<char> = chunk.chars().collect();
    let mut spaced = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1).copied();
        let digit = |c: Option<char>| c.is_some_and(|c| c.is_ascii_digit());
        match c {
            '-' if digit(prev) && digit(next) => spaced.push_str(" to "),
            '-' if prev.is_none() && digit(next) => spaced.push('-'),
            '/' if digit(prev) && digit(next) => spaced.push('/'),
            '-' | '/' | '+' | '_' => spaced.push(' '),
            '&' => spaced.push_str(" and "),
            _ => spaced.push(c),
        }
    }
    for piece in spaced.split_whitespace() {
        if let Some(v) = numbers::parse_attached(piece) {
            out.push(Token::value(v, piece));
            continue;
        }
        let lex = lexicon();
        let word = lex
            .spellings
            .get(piece)
            .cloned()
            .or_else(|| typos.then(|| crate::typos::correct(piece)).flatten())
            .map(|w| lex.spellings.get(&w).cloned().unwrap_or(w))
            .unwrap_or_else(|| piece.to_string());
        match numbers::number_word(&word) {
            Some(n) => out.push(Token::value(Value::Num(n), &word)),
            None => out.push(Token::word(&word)),
        }
    }
}

/// Joins tokens that only mean something together: "twenty five", "two and a half",
/// "half a second", "a minute", "30 fps", "1280 by 720", "1 min 30 s", "every second".
fn combine(mut tokens: Vec<Token>) -> Vec<Token> {
    let mut i = 0;
    while i < tokens.len() {
        match join_at(&tokens, i) {
            // Retry at the same place: "twenty five" + "frames" joins twice.
            Some((start, len, token)) => {
                tokens.splice(start..start + len, [token]);
            }
            None => i += 1,
        }
    }
    merge_times(tokens)
}

/// One join starting at `i`: (first token replaced, how many, the new token).
fn join_at(raw: &[Token], i: usize) -> Option<(usize, usize, Token)> {
    let t = &raw[i];
    let word_at = |j: usize| {
        raw.get(j)
            .filter(|t| t.kind == Tok::Word)
            .map(|t| t.norm.as_str())
    };
    let time_unit = |j: usize| match word_at(j).and_then(numbers::unit) {
        // Single letters ("s", "m") only count right after a number.
        Some(Unit::Time(k)) if word_at(j).is_some_and(|w| w.len() > 2) => Some(k),
        _ => None,
    };
    // "twenty five", "one hundred"
    if let (Some(a), Some(b)) = (t.word_num(), raw.get(i + 1).and_then(Token::word_num)) {
        let text = format!("{} {}", t.norm, raw[i + 1].norm);
        if (20.0..100.0).contains(&a) && a % 10.0 == 0.0 && b < 10.0 {
            return Some((i, 2, Token::value(Value::Num(a + b), &text)));
        }
        if b == 100.0 && a < 100.0 {
            return Some((i, 2, Token::value(Value::Num(a * 100.0), &text)));
        }
    }
    // "two and a half"
    if let Some(n) = t.num()
        && word_at(i + 1) == Some("and")
        && word_at(i + 2) == Some("a")
        && word_at(i + 3) == Some("half")
    {
        return Some((
            i,
            4,
            Token::value(Value::Num(n + 0.5), &format!("{} and a half", t.norm)),
        ));
    }
    // "from second 4", "del segundo 5", "ab Sekunde 7": the point N seconds in. Only a
    // number in digits right after a singular "second" ("seconds 2 to 4" is read by rules).
    if word_at(i) == Some("second")
        && !raw
            .get(i.wrapping_sub(1))
            .is_some_and(|p| matches!(p.kind, Tok::Value(_)))
        && let Some(n) = raw.get(i + 1).and_then(Token::num)
        && !raw[i + 1].norm.chars().any(|c| c.is_ascii_alphabetic())
    {
        let text = format!("second {}", raw[i + 1].norm);
        return Some((i, 2, Token::value(Value::Time(n), &text)));
    }
    // A number word right before a number in digits is another word ("dos 2 primeiros":
    // Portuguese "of the", not Spanish "two").
    if t.word_num().is_some()
        && raw.get(i + 1).is_some_and(|n| {
            matches!(n.kind, Tok::Value(_)) && n.norm.starts_with(|c: char| c.is_ascii_digit())
        })
    {
        return Some((i, 1, Token::word("of")));
    }
    // German "um": "um 90 Grad" is "by"; a clause-final "um" ends a separable verb ("dreh es
    // um": turn it around, reverse or flip?), which stays unread rather than "rotate by";
    // before a word it is Portuguese "a" ("faz um gif").
    if word_at(i) == Some("um") {
        match raw.get(i + 1).map(|t| &t.kind) {
            Some(Tok::Value(_)) => return Some((i, 1, Token::word("by"))),
            Some(Tok::Word) | Some(Tok::File) => return Some((i, 1, Token::word("a"))),
            // "wandle es in ein WebM um": the end of "umwandeln", convert, read already.
            _ if raw[..i]
                .iter()
                .rev()
                .take_while(|t| t.kind != Tok::Sep)
                .any(|t| t.norm == "convert") =>
            {
                return Some((i, 1, Token::word("a")));
            }
            _ => {}
        }
    }
    // "a couple of", "a few", "several"
    if word_at(i) == Some("a") && word_at(i + 1) == Some("couple") {
        let len = if word_at(i + 2) == Some("of") { 3 } else { 2 };
        return Some((i, len, Token::value(Value::Num(2.0), "a couple")));
    }
    if word_at(i) == Some("a") && word_at(i + 1) == Some("few") {
        return Some((i, 2, Token::value(Value::Num(3.0), "a few")));
    }
    if word_at(i) == Some("several") {
        return Some((i, 1, Token::value(Value::Num(3.0), "several")));
    }
    // "half second", "half a minute"
    if word_at(i) == Some("half")
        && let Some(k) = time_unit(i + 1)
    {
        return Some((i, 2, Token::value(Value::Time(0.5 * k), "half")));
    }
    // "half a second", "half an hour"
    if word_at(i) == Some("half")
        && matches!(word_at(i + 1), Some("a" | "an"))
        && let Some(k) = time_unit(i + 2)
    {
        return Some((i, 3, Token::value(Value::Time(0.5 * k), "half a")));
    }
    // "a minute", "an hour", "a second" (not "a second audio track")
    if matches!(word_at(i), Some("a" | "an"))
        && let Some(k) = time_unit(i + 1)
        && !(word_at(i + 1) == Some("second")
            && word_at(i + 2).is_some_and(|n| ORDINAL_FOLLOWERS.contains(&n)))
    {
        return Some((
            i,
            2,
            Token::value(Value::Time(k), &format!("a {}", raw[i + 1].norm)),
        ));
    }
    // "every second", "the last minute": the unit alone means one of it.
    if matches!(
        word_at(i),
        Some("every" | "each" | "per" | "first" | "last" | "final" | "opening" | "closing")
    ) && let Some(k) = time_unit(i + 1)
    {
        return Some((i + 1, 1, Token::value(Value::Time(k), &raw[i + 1].norm)));
    }
    if let Some(n) = t.num() {
        // "1280 by 720", "1280 x 720"
        if matches!(word_at(i + 1), Some("by" | "x"))
            && let Some(m) = raw.get(i + 2).and_then(Token::num)
            && n.fract() == 0.0
            && m.fract() == 0.0
            && n >= 1.0
            && m >= 1.0
        {
            let text = format!("{n}x{m}");
            return Some((i, 3, Token::value(Value::Dim(n as u32, m as u32), &text)));
        }
        // "30 fps", "2 seconds", "5 frames per second"
        if let Some((len, unit)) = unit_after(raw, i + 1) {
            let text: Vec<&str> = raw[i..=i + len].iter().map(|t| t.norm.as_str()).collect();
            return Some((
                i,
                1 + len,
                Token::value(numbers::with_unit(n, unit), &text.join(" ")),
            ));
        }
    }
    if t.kind == Tok::Word
        && let Some(f) = numbers::factor_word(&t.norm)
    {
        return Some((i, 1, Token::value(Value::Mult(f), &t.norm)));
    }
    None
}

/// The longest unit phrase starting at `at`: (number of words, unit).
fn unit_after(raw: &[Token], at: usize) -> Option<(usize, Unit)> {
    numbers::UNITS
        .iter()
        .filter_map(|(spelling, unit)| {
            let words: Vec<&str> = spelling.split(' ').collect();
            let fits = words
                .iter()
                .enumerate()
                .all(|(k, w)| raw.get(at + k).is_some_and(|t| t.is_word(w)));
            fits.then_some((words.len(), *unit))
        })
        .max_by_key(|(len, _)| *len)
}

/// "1 min 30 s", "1 minute and 30 seconds" → one time.
fn merge_times(tokens: Vec<Token>) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        if let (Some(Value::Time(a)), Some(prev)) = (tokens[i].value_ref().cloned(), out.last())
            && let Some(Value::Time(p)) = prev.value_ref()
            && *p >= 60.0
            && a < *p
        {
            let merged = Token::value(
                Value::Time(p + a),
                &format!("{} {}", prev.norm, tokens[i].norm),
            );
            *out.last_mut().unwrap() = merged;
            i += 1;
            continue;
        }
        if tokens[i].is_word("and")
            && let (Some(Some(Value::Time(p))), Some(Some(Value::Time(a)))) = (
                out.last().map(Token::value_ref),
                tokens.get(i + 1).map(Token::value_ref),
            )
            && *p >= 60.0
            && a < p
        {
            let merged = Token::value(
                Value::Time(p + a),
                &format!("{} and {}", out.last().unwrap().norm, tokens[i + 1].norm),
            );
            *out.last_mut().unwrap() = merged;
            i += 2;
            continue;
        }
        out.push(tokens[i].clone());
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_commas_become_points() {
        assert_eq!(decimal_commas("a 1,5x e 0,75"), "a 1.5x e 0.75");
        assert_eq!(decimal_commas("1,500 frames, 1,2,3"), "1,500 frames, 1,2,3");
        assert_eq!(decimal_commas("at 2, then 3"), "at 2, then 3");
    }

    fn values(s: &str) -> Vec<Value> {
        tokenize(s)
            .into_iter()
            .filter_map(|t| t.value_ref().cloned())
            .collect()
    }

    fn words(s: &str) -> Vec<String> {
        tokenize(s).into_iter().map(|t| t.norm).collect()
    }

    #[test]
    fn numbers_in_words() {
        assert_eq!(values("twenty five frames"), vec![Value::Frames(25.0)]);
        assert_eq!(values("two and a half minutes"), vec![Value::Time(150.0)]);
        assert_eq!(values("half a second"), vec![Value::Time(0.5)]);
        assert_eq!(values("a minute"), vec![Value::Time(60.0)]);
        assert_eq!(values("add a second audio track"), vec![]);
        assert_eq!(values("every second"), vec![Value::Time(1.0)]);
        assert_eq!(values("the last second"), vec![Value::Time(1.0)]);
        assert_eq!(values("a couple of seconds"), vec![Value::Time(2.0)]);
        assert_eq!(values("one hundred"), vec![Value::Num(100.0)]);
    }

    #[test]
    fn units_apart_and_attached() {
        assert_eq!(values("15 fps"), vec![Value::Rate(15.0)]);
        assert_eq!(values("1 frame per second"), vec![Value::Rate(1.0)]);
        assert_eq!(values("16 kHz"), vec![Value::Hz(16000.0)]);
        assert_eq!(values("1280 by 720"), vec![Value::Dim(1280, 720)]);
        assert_eq!(values("1 min 30 s"), vec![Value::Time(90.0)]);
        assert_eq!(values("1 minute and 30 seconds"), vec![Value::Time(90.0)]);
        assert_eq!(values("90 seconds"), vec![Value::Time(90.0)]);
        assert_eq!(values("50 percent"), vec![Value::Pct(50.0)]);
        assert_eq!(values("3 times"), vec![Value::Mult(3.0)]);
        assert_eq!(values("twice"), vec![Value::Mult(2.0)]);
        assert_eq!(values("-14 LUFS"), vec![Value::Lufs(-14.0)]);
    }

    #[test]
    fn punctuation() {
        assert_eq!(
            values("from 0:02-0:06"),
            vec![Value::Clock(vec![0.0, 2.0]), Value::Clock(vec![0.0, 6.0])]
        );
        assert_eq!(
            words("top-right corner."),
            vec!["top", "right", "corner", ","]
        );
        assert_eq!(words("the video's audio"), vec!["the", "video", "audio"]);
        assert_eq!(
            words("make it B&W"),
            vec!["make", "it", "black", "and", "white"]
        );
        assert_eq!(words("use H.265"), vec!["use", "h265"]);
        assert_eq!(
            words("put logo.png on clip.mp4"),
            vec!["put", "logo.png", "on", "clip.mp4"]
        );
        assert_eq!(words("greyscale colour"), vec!["grayscale", "color"]);
        assert_eq!(words("with 264 kbps"), vec!["with", "264 kbps"]);
    }
}
