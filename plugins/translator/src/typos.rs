//! Misspelt keywords: a word of five or more letters that the grammar does not know is read
//! as the one known word within one edit (two from eight letters: a letter missing, doubled,
//! swapped or wrong), if exactly one is closest. Only unknown words are corrected, so "lower"
//! never becomes "louder".

use std::collections::HashSet;
use std::sync::OnceLock;

use crate::lexicon::lexicon;
use crate::numbers::{FACTOR_WORDS, NUMBER_WORDS, UNITS};

const TASK_TXT: &str = include_str!("../grammar/task.txt");
const PROBE_TXT: &str = include_str!("../grammar/probe.txt");

/// Shortest word corrected, and shortest keyword a word is corrected to.
const MIN_LEN: usize = 5;
const MAX_EDITS: usize = 2;
/// Shortest word that may be two edits from its keyword.
const TWO_EDITS_FROM: usize = 8;

struct Vocabulary {
    /// Every word the grammar and lexicon know.
    known: HashSet<String>,
    /// The keywords a misspelling may become (letters only, `MIN_LEN` or longer).
    keywords: Vec<Vec<char>>,
}

fn vocabulary() -> &'static Vocabulary {
    static V: OnceLock<Vocabulary> = OnceLock::new();
    V.get_or_init(|| {
        let lex = lexicon();
        let mut known: HashSet<String> = HashSet::new();
        let phrases = lex
            .classes
            .values()
            .flatten()
            .chain(lex.values.values().flatten().map(|(p, _)| p));
        for p in phrases {
            known.extend(p.iter().cloned());
        }
        // Spelling keys (other languages, casual forms) are known but never a correction:
        // "compresss" is "compress", not French "compressez".
        let keywords_from: HashSet<String> = known
            .iter()
            .cloned()
            .chain(lex.spellings.values().cloned())
            .collect();
        known.extend(lex.spellings.keys().cloned());
        known.extend(lex.spellings.values().cloned());
        // Pattern words of the rule files: `a|b_c` alternatives, not slots or classes.
        for text in [TASK_TXT, PROBE_TXT] {
            for line in text.lines().filter(|l| {
                !l.trim_start().starts_with('#') && crate::grammar::message(l).is_none()
            }) {
                let pattern = line.split("=>").next().unwrap_or("");
                for part in pattern.split([' ', '|', '_', '?']) {
                    if !part.starts_with(['@', '$']) && !part.is_empty() {
                        known.insert(part.to_string());
                    }
                }
            }
        }
        let tables = NUMBER_WORDS
            .iter()
            .map(|(w, _)| *w)
            .chain(FACTOR_WORDS.iter().map(|(w, _)| *w))
            .chain(UNITS.iter().flat_map(|(w, _)| w.split(' ')));
        known.extend(tables.map(str::to_string));
        known.extend(crate::tokens::TOKENIZER_WORDS.iter().map(|w| w.to_string()));
        let keywords = known
            .iter()
            .filter(|w| keywords_from.contains(*w) || !lex.spellings.contains_key(*w))
            .filter(|w| w.chars().count() >= MIN_LEN && w.chars().all(char::is_alphabetic))
            .map(|w| w.chars().collect())
            .collect();
        Vocabulary { known, keywords }
    })
}

/// Edits between two words (optimal string alignment: a swap of neighbours is one edit),
/// or `None` past `MAX_EDITS`.
fn edits(a: &[char], b: &[char]) -> Option<usize> {
    if a.len().abs_diff(b.len()) > MAX_EDITS {
        return None;
    }
    let (n, m) = (a.len(), b.len());
    let mut d = vec![vec![0usize; m + 1]; n + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for j in 0..=m {
        d[0][j] = j;
    }
    for i in 1..=n {
        for j in 1..=m {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    (d[n][m] <= MAX_EDITS).then_some(d[n][m])
}

/// Whether the grammar or the lexicon knows `word` anywhere (a word it never mentions can mean
/// nothing to it).
pub fn is_known(word: &str) -> bool {
    vocabulary().known.contains(word)
}

/// The keyword a misspelt word stands for, if it is unknown and exactly one keyword is
/// closest with the same first letter (people rarely mistype it, and "order" is not
/// "border").
pub fn correct(word: &str) -> Option<String> {
    let chars: Vec<char> = word.chars().collect();
    if chars.len() < MIN_LEN || !chars.iter().all(|c| c.is_alphabetic()) {
        return None;
    }
    let v = vocabulary();
    if v.known.contains(word) {
        return None;
    }
    // Two slips in a short word make another word more often than a misspelling ("sister" is
    // not "softer", "grandma" not "grande"): one edit below `TWO_EDITS_FROM` letters
    // (2026-12-03).
    let allowed = if chars.len() < TWO_EDITS_FROM {
        1
    } else {
        MAX_EDITS
    };
    let mut best: Option<(usize, &Vec<char>)> = None;
    let mut tied = false;
    for k in &v.keywords {
        let Some(e) = edits(&chars, k).filter(|&e| e <= allowed) else {
            continue;
        };
        if k[0] != chars[0] {
            continue;
        }
        match best {
            Some((b, _)) if e > b => {}
            Some((b, _)) if e == b => tied = true,
            _ => {
                best = Some((e, k));
                tied = false;
            }
        }
    }
    match best {
        Some((_, k)) if !tied => Some(k.iter().collect()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corrects_unknown_words_only() {
        assert_eq!(correct("rotaet").as_deref(), Some("rotate"));
        assert_eq!(correct("thumbnial").as_deref(), Some("thumbnail"));
        assert_eq!(correct("compres").as_deref(), Some("compress"));
        assert_eq!(correct("seconds"), None);
        assert_eq!(correct("restaurant"), None);
        assert_eq!(correct("mp4"), None);
        assert_eq!(correct("sister"), None);
        assert_eq!(correct("grandma"), None);
    }
}
