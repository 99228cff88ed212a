//! The vocabulary: spellings, rewrites, word classes and value words, read from
//! `grammar/lexicon.txt` (see the comments at its top for the line forms).

use std::collections::HashMap;
use std::sync::OnceLock;

const LEXICON_TXT: &str = include_str!("../grammar/lexicon.txt");
/// Other languages' words for the common requests, in the same line forms.
const LANGUAGES_TXT: &str = include_str!("../grammar/languages.txt");

/// A phrase: one or more normalized words.
pub type Phrase = Vec<String>;

#[derive(Debug, Default)]
pub struct Lexicon {
    /// `colour` → `color`: applied to every word.
    pub spellings: HashMap<String, String>,
    /// Raw-text rewrites for forms with punctuation (`b&w`, `h.264`), applied in order.
    pub rewrites: Vec<(String, String)>,
    /// `@name` → its phrases.
    pub classes: HashMap<String, Vec<Phrase>>,
    /// `$slot` → (phrase, key) pairs, longest phrases first.
    pub values: HashMap<String, Vec<(Phrase, String)>>,
    /// The words `languages.txt` reads as English: an instruction holding one is in another
    /// language, whose other words (articles, pronouns) the grammar cannot know.
    pub foreign: std::collections::HashSet<String>,
}

pub fn lexicon() -> &'static Lexicon {
    static LEXICON: OnceLock<Lexicon> = OnceLock::new();
    LEXICON.get_or_init(|| {
        let mut lex = parse(LEXICON_TXT).unwrap_or_else(|e| panic!("lexicon.txt: {e}"));
        let other = parse(LANGUAGES_TXT).unwrap_or_else(|e| panic!("languages.txt: {e}"));
        lex.rewrites.extend(other.rewrites.clone());
        // Other languages' function words (`@filler`, `@quiet` there) join the English
        // classes: an instruction in another language is then checked word by word too.
        for (name, list) in other.classes.clone() {
            let class = lex.classes.entry(name).or_default();
            class.extend(list);
            class.sort_by_key(|p| std::cmp::Reverse(p.len()));
        }
        // Words English uses too ("image", "logo", "bring") do not mark another language.
        let own = parse(LEXICON_TXT).unwrap_or_default();
        let english: std::collections::HashSet<&str> = own
            .classes
            .values()
            .flatten()
            .chain(lex.values.values().flatten().map(|(p, _)| p))
            .flatten()
            .map(String::as_str)
            .chain([
                "bring", "pack", "coin", "inverse", "solo", "film", "passe", "large", "blog",
                "web", "page", "filme",
            ])
            .collect();
        lex.foreign = other
            .spellings
            .iter()
            .filter(|(k, v)| k != v && !english.contains(k.as_str()))
            .map(|(k, _)| k.clone())
            .collect();
        // Their function words mark another language too (long ones only: "con" or "da"
        // could be English).
        lex.foreign.extend(
            other
                .classes
                .get("filler")
                .into_iter()
                .flatten()
                .filter(|p| p.len() == 1 && p[0].chars().count() >= 4)
                .filter(|p| !["favor", "fare", "pros", "vale", "pour"].contains(&p[0].as_str()))
                .filter(|p| !english.contains(p[0].as_str()))
                .map(|p| p[0].clone()),
        );
        lex.spellings.extend(other.spellings.clone());
        // People often leave the accents out ("quitale", "premieres", "groesse"): each word
        // and phrase of the other languages is read unaccented too, unless that spelling
        // already means something (English, or another word of the lists).
        for (word, to) in &other.spellings {
            for plain in unaccented(word) {
                if plain.chars().count() >= 3
                    && !lex.spellings.contains_key(&plain)
                    && !english.contains(plain.as_str())
                    && !lex.is_filler(&plain)
                {
                    lex.foreign.insert(plain.clone());
                    lex.spellings.insert(plain, to.clone());
                }
            }
        }
        let fillers: Vec<String> = other
            .classes
            .get("filler")
            .into_iter()
            .flatten()
            .filter(|p| p.len() == 1)
            .map(|p| p[0].clone())
            .collect();
        for word in fillers {
            for plain in unaccented(&word) {
                if plain.chars().count() >= 3
                    && !lex.spellings.contains_key(&plain)
                    && !english.contains(plain.as_str())
                    && !lex.is_filler(&plain)
                {
                    lex.classes
                        .get_mut("filler")
                        .expect("the filler class")
                        .push(vec![plain]);
                }
            }
        }
        let known: std::collections::HashSet<String> =
            lex.rewrites.iter().map(|(f, _)| f.clone()).collect();
        let plain_rewrites: Vec<(String, String)> = other
            .rewrites
            .iter()
            .flat_map(|(from, to)| unaccented(from).into_iter().map(move |p| (p, to.clone())))
            .filter(|(p, _)| !known.contains(p))
            .collect();
        lex.rewrites.extend(plain_rewrites);
        lex
    })
}

/// The spellings of a word without its accents ("quítale" → "quitale"), and for German
/// umlauts also as written without them ("größe" → "groesse"); empty when it has none.
pub fn unaccented(word: &str) -> Vec<String> {
    let plain: String = word
        .chars()
        .map(|c| match c {
            'á' | 'à' | 'â' | 'ä' | 'ã' => 'a',
            'é' | 'è' | 'ê' | 'ë' => 'e',
            'í' | 'ì' | 'î' | 'ï' => 'i',
            'ó' | 'ò' | 'ô' | 'ö' | 'õ' => 'o',
            'ú' | 'ù' | 'û' | 'ü' => 'u',
            'ç' => 'c',
            'ñ' => 'n',
            c => c,
        })
        .collect();
    let mut out = Vec::new();
    if plain != word {
        out.push(plain);
    }
    if word.contains(['ä', 'ö', 'ü', 'ß']) {
        let german = word
            .replace('ä', "ae")
            .replace('ö', "oe")
            .replace('ü', "ue")
            .replace('ß', "ss");
        out.push(german.clone());
        if german.contains(['á', 'é', 'í', 'ó', 'ú']) {
            out.extend(unaccented(&german));
        }
    }
    out
}

fn phrases(list: &str) -> Vec<Phrase> {
    list.split('|')
        .map(|p| p.split_whitespace().map(str::to_string).collect::<Phrase>())
        .filter(|p| !p.is_empty())
        .collect()
}

pub fn parse(text: &str) -> Result<Lexicon, String> {
    let mut lex = Lexicon::default();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.split(" #").next().unwrap_or("").trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = || format!("line {}: cannot read `{raw}`", n + 1);
        let (head, body) = line.split_once(" = ").ok_or_else(bad)?;
        let head = head.trim();
        if let Some(word) = head.strip_prefix("~ ") {
            lex.spellings.insert(word.trim().into(), body.trim().into());
        } else if let Some(from) = head.strip_prefix("> ") {
            lex.rewrites
                .push((from.trim().into(), format!(" {} ", body.trim())));
        } else if let Some(name) = head.strip_prefix('@') {
            lex.classes
                .entry(name.into())
                .or_default()
                .extend(phrases(body));
        } else if let Some(slot_key) = head.strip_prefix('$') {
            let (slot, key) = slot_key.split_once(' ').ok_or_else(bad)?;
            let entries = lex.values.entry(slot.into()).or_default();
            for p in phrases(body) {
                entries.push((p, key.trim().into()));
            }
        } else {
            return Err(bad());
        }
    }
    // Longest phrases first, so "top right corner" wins over "top right".
    for list in lex.classes.values_mut() {
        list.sort_by_key(|p| std::cmp::Reverse(p.len()));
    }
    for list in lex.values.values_mut() {
        list.sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
    }
    Ok(lex)
}

impl Lexicon {
    /// Whether `word` alone is a phrase of `@class`.
    pub fn has(&self, class: &str, word: &str) -> bool {
        self.classes
            .get(class)
            .is_some_and(|c| c.iter().any(|p| p.len() == 1 && p[0] == word))
    }

    pub fn is_filler(&self, word: &str) -> bool {
        self.has("filler", word)
    }

    /// The key of a `$slot` value phrase, e.g. `key("fmt", ["webm"])`.
    pub fn key(&self, slot: &str, words: &[&str]) -> Option<&str> {
        self.values.get(slot)?.iter().find_map(|(p, k)| {
            (p.len() == words.len() && p.iter().zip(words).all(|(a, b)| a == b))
                .then_some(k.as_str())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexicon_parses() {
        let lex = lexicon();
        assert!(lex.classes.contains_key("audio"));
        assert!(lex.is_filler("the"));
        assert_eq!(
            lex.spellings.get("colour").map(String::as_str),
            Some("color")
        );
        assert_eq!(lex.key("fmt", &["webm"]), Some("webm"));
        assert_eq!(lex.key("corner", &["top", "right"]), Some("top-right"));
    }

    #[test]
    fn rejects_malformed_lines() {
        assert!(parse("nonsense line").is_err());
        assert!(parse("$corner = top").is_err());
    }
}
