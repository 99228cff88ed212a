//! Reading a rule file (`grammar/task.txt`, `grammar/probe.txt`) and running its rules over
//! the tokens of an instruction.

use crate::lexicon::lexicon;
use crate::pattern::{Capture, Pattern};
use crate::tokens::{Tok, Token};

#[derive(Debug)]
pub struct Rule {
    pub pattern: Pattern,
    pub intent: String,
    pub args: Vec<String>,
    /// Line in the rule file, for messages about the grammar itself.
    pub line: usize,
}

#[derive(Debug)]
pub struct Grammar {
    pub rules: Vec<Rule>,
}

/// One rule that fired: what it built and which tokens it used.
#[derive(Debug)]
pub struct Hit<T> {
    pub value: T,
    pub start: usize,
    pub used: Vec<usize>,
}

/// `say NAME = TEXT` lines name a refusal's words once, for every rule that gives it
/// (`=> unsupported NAME`): the same refusal is then worded the same wherever it is reached.
pub fn message(line: &str) -> Option<(&str, &str)> {
    let (name, text) = line.trim().strip_prefix("say ")?.split_once('=')?;
    Some((name.trim(), text.trim()))
}

impl Grammar {
    /// `PATTERN => INTENT ARGS...` lines; `#` starts a comment line; `say` lines name messages.
    pub fn parse(text: &str) -> Result<Grammar, String> {
        let lex = lexicon();
        let messages: std::collections::HashMap<&str, &str> =
            text.lines().filter_map(message).collect();
        let mut rules = Vec::new();
        for (n, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') || message(line).is_some() {
                continue;
            }
            let (pattern, action) = line
                .split_once("=>")
                .ok_or_else(|| format!("line {}: no `=>` in `{line}`", n + 1))?;
            let mut words = action.split_whitespace().map(str::to_string);
            let intent = words
                .next()
                .ok_or_else(|| format!("line {}: no intent", n + 1))?;
            let pattern = Pattern::compile(pattern.trim(), lex)
                .map_err(|e| format!("line {}: {e}", n + 1))?;
            let mut args: Vec<String> = words.collect();
            if let [name] = args.as_slice()
                && let Some(said) = messages.get(name.as_str())
            {
                args = said.split_whitespace().map(str::to_string).collect();
            }
            rules.push(Rule {
                pattern,
                intent,
                args,
                line: n + 1,
            });
        }
        Ok(Grammar { rules })
    }

    /// Runs every rule in order. A rule matches as often as it can; the tokens it matched are
    /// then taken, so later rules cannot use them. `build` may turn a match down (for
    /// instance a factor that makes no sense), which leaves its tokens free. Hits come back
    /// in the order of the instruction.
    pub fn run<T>(
        &self,
        tokens: &[Token],
        build: impl Fn(&Rule, &[Capture]) -> Option<T>,
    ) -> Vec<Hit<T>> {
        let mut consumed = vec![false; tokens.len()];
        let mut hits = Vec::new();
        for rule in &self.rules {
            let mut from = 0;
            while let Some(m) = rule.pattern.find(tokens, &consumed, from) {
                from = m.start + 1;
                if let Some(value) = build(rule, &m.captures) {
                    for &i in &m.used {
                        consumed[i] = true;
                    }
                    hits.push(Hit {
                        value,
                        start: m.start,
                        used: m.used,
                    });
                }
            }
        }
        hits.sort_by_key(|h| h.start);
        hits
    }
}

/// The words of the instruction that no rule used and that carry meaning (not fillers,
/// separators or politeness), for telling the user what was not understood.
pub fn leftovers<T>(tokens: &[Token], hits: &[Hit<T>]) -> Vec<String> {
    let used: std::collections::HashSet<usize> =
        hits.iter().flat_map(|h| h.used.iter().copied()).collect();
    // A file name names an input ("convert clip.mp4"): it asks for nothing itself.
    let quiet = |t: &Token| !meaningful(t);
    let mut out: Vec<String> = Vec::new();
    let mut run: Vec<&str> = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        if used.contains(&i) || quiet(t) {
            if !run.is_empty() {
                out.push(run.join(" "));
                run.clear();
            }
        } else {
            run.push(&t.norm);
        }
    }
    if !run.is_empty() {
        out.push(run.join(" "));
    }
    out
}

/// The clauses (between separators and unused `@barrier` words: "and", "then", ...) in which no
/// rule used a word but that hold meaningful words, each as those words: a part of the request
/// that would otherwise be dropped without a word. A clause counts as understood when any rule
/// used a word of it ("trim the first 10 seconds": the rule took "first 10 seconds").
/// Each token's clause: clauses are separated by punctuation and `@barrier` words ("and",
/// "then").
pub fn clause_numbers(tokens: &[Token]) -> Vec<usize> {
    let lex = lexicon();
    let mut n = 0;
    tokens
        .iter()
        .map(|t| {
            let barrier = t.kind == Tok::Sep
                || (t.kind == Tok::Word
                    && lex.classes["barrier"]
                        .iter()
                        .any(|p| p.len() == 1 && p[0] == t.norm));
            if barrier {
                n += 1;
            }
            n
        })
        .collect()
}

pub fn unaccounted_clauses<T>(tokens: &[Token], hits: &[Hit<T>]) -> Vec<String> {
    clauses_not_understood(tokens, hits, false)
}

/// Like [`unaccounted_clauses`], but only the clauses joined to the one before by "and",
/// "plus" or "also": in a question, a second question ("which codec, and what sample rate")
/// rather than its context ("before I convert it: ...").
pub fn unaccounted_joined<T>(tokens: &[Token], hits: &[Hit<T>]) -> Vec<String> {
    clauses_not_understood(tokens, hits, true)
}

/// A word that asks for something: not a separator, filler, barrier, quiet word or file name
/// (a file name names an input; a number left alone is part of what was asked).
pub fn meaningful(t: &Token) -> bool {
    let lex = lexicon();
    match t.kind {
        Tok::Sep | Tok::File => false,
        Tok::Word => {
            !(lex.is_filler(&t.norm)
                || is_barrier(t)
                || lex.classes["quiet"]
                    .iter()
                    .any(|p| p.len() == 1 && p[0] == t.norm))
        }
        _ => true,
    }
}

fn is_barrier(t: &Token) -> bool {
    t.kind == Tok::Word
        && lexicon().classes["barrier"]
            .iter()
            .any(|p| p.len() == 1 && p[0] == t.norm)
}

/// The instruction's clauses, as token indices: split at separators and at barrier words no
/// rule used. Each comes with whether "and", "plus" or "also" opened it.
pub fn clauses(
    tokens: &[Token],
    used: &std::collections::HashSet<usize>,
) -> Vec<(Vec<usize>, bool)> {
    let mut out = Vec::new();
    let mut clause: Vec<usize> = Vec::new();
    let mut opened_by_and = false;
    for (i, t) in tokens.iter().enumerate() {
        if t.kind == Tok::Sep || (is_barrier(t) && !used.contains(&i)) {
            out.push((std::mem::take(&mut clause), opened_by_and));
            opened_by_and = ["and", "plus", "also"].contains(&t.norm.as_str());
        } else {
            clause.push(i);
        }
    }
    out.push((clause, opened_by_and));
    out
}

fn clauses_not_understood<T>(tokens: &[Token], hits: &[Hit<T>], joined: bool) -> Vec<String> {
    let used: std::collections::HashSet<usize> =
        hits.iter().flat_map(|h| h.used.iter().copied()).collect();
    let mut out = Vec::new();
    for (clause, opened_by_and) in clauses(tokens, &used) {
        let understood = clause.iter().any(|i| used.contains(i)) || (joined && !opened_by_and);
        let words: Vec<&str> = clause
            .iter()
            .filter(|&&i| meaningful(&tokens[i]))
            .map(|&i| tokens[i].norm.as_str())
            .collect();
        if !understood && !words.is_empty() {
            out.push(words.join(" "));
        }
    }
    out
}

/// Words no rule used that the grammar does not know at all ("make a boomerang of the first 2
/// seconds": "boomerang"), even inside a clause that was otherwise understood: such a word may
/// be the very thing asked for, and the rest of its clause would run without it.
pub fn unknown_words<T>(tokens: &[Token], hits: &[Hit<T>]) -> Vec<String> {
    let used: std::collections::HashSet<usize> =
        hits.iter().flat_map(|h| h.used.iter().copied()).collect();
    let lex = lexicon();
    tokens
        .iter()
        .enumerate()
        .filter(|(i, t)| {
            t.kind == Tok::Word
                && !used.contains(i)
                && !lex.is_filler(&t.norm)
                && t.norm.chars().any(char::is_alphabetic)
                && !crate::typos::is_known(&t.norm)
        })
        .map(|(_, t)| t.norm.clone())
        .collect()
}

/// Nouns a count of the inputs goes with ("the two clips").
const INPUT_NOUNS: &[&str] = &[
    "clips",
    "bits",
    "parts",
    "videos",
    "vídeos",
    "vidéos",
    "files",
    "vids",
    "inputs",
    "songs",
    "recordings",
    "images",
    "pictures",
    "photos",
    "tracks",
    "dateien",
    "fichiers",
    "archivos",
    "arquivos",
    "ficheiros",
    "filmati",
    "video",
    "clip",
    "file",
    "audio",
    "audios",
    "áudios",
    "sounds",
    "mp4s",
    "mp3s",
    "movies",
    "pieces",
    "morceaux",
    "teile",
    "partes",
    "pezzi",
];

/// Numbers and measures no rule used ("a thumbnail from second 5 at 320 px": the 5): a
/// number is always part of what was asked, so one left over means an operation ran without
/// it, or with another number in its place. Each comes with the count it gives when it counts
/// the inputs ("join the two clips", "emenda os dois vídeos"): the caller checks that count.
pub fn loose_values<T>(tokens: &[Token], hits: &[Hit<T>]) -> Vec<(String, Option<f64>)> {
    let used: std::collections::HashSet<usize> =
        hits.iter().flat_map(|h| h.used.iter().copied()).collect();
    tokens
        .iter()
        .enumerate()
        // "one" is as often a pronoun ("make one", "one small jpg") as a count.
        .filter(|(i, t)| matches!(t.kind, Tok::Value(_)) && !used.contains(i) && t.norm != "one")
        .map(|(i, t)| {
            let count = match t.kind {
                Tok::Value(crate::numbers::Value::Num(n))
                    if tokens.get(i + 1).is_some_and(|n| {
                        n.kind == Tok::Word && INPUT_NOUNS.contains(&n.norm.as_str())
                    }) =>
                {
                    Some(n)
                }
                _ => None,
            };
            // With the word before it, for the message ("second 5").
            let text = match i.checked_sub(1).map(|p| &tokens[p]) {
                Some(p) if p.kind == Tok::Word && !used.contains(&(i - 1)) => {
                    format!("{} {}", p.norm, t.norm)
                }
                _ => t.norm.clone(),
            };
            (text, count)
        })
        .collect()
}

/// Words that change what is asked and that no rule used: `@negation` words always, and
/// `@adding` words unless a request understood follows in the same clause ("add a fade
/// in" is a fade; "add 3 seconds" with nothing else understood is not), or for "only", right
/// after one.
/// Words before a unit that make it a rate: "per second", "al secondo", "por segundo".
const PER: &[&str] = &[
    "per", "a", "each", "every", "al", "por", "par", "pro", "je", "ao", "à", "ogni", "cada",
    "chaque", "jede", "jeder",
];

pub fn dropped_meaning<T>(
    tokens: &[Token],
    hits: &[Hit<T>],
    is_action: impl Fn(&T) -> bool,
) -> Vec<String> {
    let lex = lexicon();
    let mut owner: Vec<Option<&T>> = vec![None; tokens.len()];
    for h in hits {
        for &i in &h.used {
            owner[i] = Some(&h.value);
        }
    }
    let free_phrase = |class: &str, at: usize| {
        lex.classes[class].iter().find(|p| {
            p.iter().enumerate().all(|(k, w)| {
                tokens
                    .get(at + k)
                    .is_some_and(|t| owner[at + k].is_none() && t.kind == Tok::Word && t.norm == *w)
            })
        })
    };
    let barrier = |t: &Token| t.kind == Tok::Sep || lex.has("barrier", &t.norm);
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let mut len = 1;
        if let Some(p) = free_phrase("negation", i) {
            out.push(p.join(" "));
            len = p.len();
        } else if let Some(p) = free_phrase("strict", i) {
            // A word known only from a rule that refuses it (a language, "select", "vocals"):
            // dropped as known, the rest would run as if it were all (2026-11-29).
            out.push(p.join(" "));
            len = p.len();
        } else if let Some(p) = free_phrase("timeword", i) {
            // A unit of time with no number ("three frames a minute") says something about
            // time that no rule used (2026-11-27).
            out.push(p.join(" "));
            len = p.len();
        } else if owner[i].is_none()
            && tokens[i].kind == Tok::Word
            && tokens[i].norm == "second"
            && i > 0
            && PER.contains(&tokens[i - 1].norm.as_str())
        {
            // "second" is an ordinal too ("the second clip"), but after "per", "al", "por"
            // ("un fotogramma al secondo") it is a rate no rule used.
            out.push(format!("{} second", tokens[i - 1].norm));
        } else if let Some(p) = free_phrase("adding", i) {
            let leads_in = tokens[i + p.len()..]
                .iter()
                .enumerate()
                .take_while(|(_, t)| !barrier(t))
                .any(|(k, _)| owner[i + p.len() + k].is_some_and(&is_action));
            // "the first 5 seconds only", Japanese "最初の5秒だけ": "only" right after what
            // it limits.
            let limits = *p == ["only"] && i > 0 && owner[i - 1].is_some_and(&is_action);
            if !leads_in && !limits {
                out.push(p.join(" "));
            }
            len = p.len();
        }
        i += len;
    }
    out
}

/// The words a hit used, for messages.
pub fn words_of<T>(tokens: &[Token], hit: &Hit<T>) -> String {
    hit.used
        .iter()
        .map(|&i| tokens[i].norm.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The clauses that only give context (2026-11-27, fourth pass): what the user says about the
/// file, the device or the reason for the request ("I have a video from my phone", "because
/// the site is strict", "my hands were shaking", "the TV can't read it"), each as the indices of
/// its tokens, to be accounted for rather than refused as not understood. A clause counts only
/// when it holds a `@context` marker (a statement's verb, a reason) and nothing that could be a
/// request: no word any rule used, no number, no file name, no `@asks` word ("want", "please",
/// "make"), no `@negation` on its own, and every other meaningful word either unknown to the
/// grammar (a noun of the user's story) or `@quiet`. A known word ("louder", "gif", "upload")
/// makes the clause a request, refused if not understood. Out-of-scope words are checked on
/// the whole instruction before this (`scope`), so a context clause never hides one.
/// `shrinks`: the request makes the file smaller, so a `@sizeword` ("heavy", "lourde", "pesa")
/// says why rather than naming a defect.
/// A word a rule used says nothing new when the same change is asked outside the clause
/// ("... porque el reproductor de la tele no muestra subtitulos aparte" beside "burn the
/// subtitles"): the reason restates it (2026-12-01).
/// Two shapes count without a marker (2026-12-03): a statement led by its `@subject` that
/// says nothing only a request says, whatever its words ("I run a small bakery", "je suis
/// prof"); and a purpose of the user's own closing a clause ("... for our church website",
/// "... per analizzare i movimenti"), that part alone.
pub fn context_clauses<T: PartialEq>(
    tokens: &[Token],
    hits: &[Hit<T>],
    shrinks: bool,
) -> Vec<Vec<usize>> {
    let lex = lexicon();
    let used: std::collections::HashSet<usize> =
        hits.iter().flat_map(|h| h.used.iter().copied()).collect();
    // Whether the rule that used word `i` is asked again wholly outside `clause`.
    let restated = |i: usize, clause: &[usize]| {
        hits.iter().filter(|h| h.used.contains(&i)).all(|h| {
            hits.iter().any(|o| {
                o.value == h.value
                    && !o.used.is_empty()
                    && o.used.iter().all(|j| !clause.contains(j))
            })
        })
    };
    let in_class = |class: &str, w: &str| lex.has(class, w);
    let barrier = |t: &Token| t.kind == Tok::Word && in_class("barrier", &t.norm);
    let asks_pair = |i: usize| asks_pair(tokens, i);
    // Where a clause ends with the user's own purpose ("... for our feed", "... per analizzare
    // i movimenti", "... pra mandar pra quem tem internet lenta"): a `@purpose_for` word
    // followed by the user's own (`@subject`) or by an infinitive the grammar does not know,
    // running to the clause's end with nothing a request says in it (2026-12-03). Not English
    // "to" ("I want it to sparkle" asks for the sparkle).
    let purpose_at = |clause: &[usize]| -> Option<usize> {
        let k = clause.iter().position(|&i| {
            tokens[i].kind == Tok::Word
                && !used.contains(&i)
                && in_class("purpose_for", &tokens[i].norm)
                && tokens.get(i + 1).is_some_and(|n| {
                    n.kind == Tok::Word
                        && ((in_class("subject", &n.norm) && n.norm != "the")
                            || (!crate::typos::is_known(&n.norm) && infinitive(&n.norm)))
                })
        })?;
        let rest = &clause[k + 1..];
        let quiet = rest.iter().all(|&i| {
            let t = &tokens[i];
            t.kind == Tok::Word
                && !used.contains(&i)
                && !in_class("media", &t.norm)
                && !in_class("asks", &t.norm)
                && !in_class("wish", &t.norm)
                && !in_class("negation", &t.norm)
                && (!crate::typos::is_known(&t.norm)
                    || lex.is_filler(&t.norm)
                    || in_class("quiet", &t.norm)
                    || in_class("subject", &t.norm))
        });
        quiet.then_some(k)
    };
    let mut out = Vec::new();
    let mut clause: Vec<usize> = Vec::new();
    let mut close = |clause: &mut Vec<usize>| {
        let words = clause.iter().map(|&i| (i, &tokens[i]));
        let mut marker = false;
        let mut request = false;
        // Said of the file itself, an unknown word may be a defect that asks for a fix ("the
        // audio is out of sync", "la vidéo est floue"): not context.
        let mut media = false;
        let mut unknown = false;
        // Something only a request says: a number, a file name, an `@asks` word, a change no
        // other clause asks for, the file itself (`@media`).
        let mut told = false;
        // "subbed.mkv won't open in my editing software" (2026-11-29): a file name is part of
        // what is asked, unless the clause says what a player or a program does with it.
        let says_use = clause
            .iter()
            .any(|&i| tokens[i].kind == Tok::Word && in_class("contextword", &tokens[i].norm));
        for (i, t) in words {
            // "got two bits from the holidays": a count of the inputs tells of them.
            let counts_inputs = tokens
                .get(i + 1)
                .is_some_and(|n| INPUT_NOUNS.contains(&n.norm.as_str()));
            match t.kind {
                Tok::Word => {}
                Tok::Sep => continue,
                Tok::File if says_use && !used.contains(&i) => continue,
                Tok::Value(crate::numbers::Value::Num(_))
                    if counts_inputs && !used.contains(&i) =>
                {
                    continue;
                }
                // A number or a file name is part of what is asked.
                _ => {
                    request = true;
                    told = true;
                }
            }
            let asks = in_class("asks", &t.norm) || asks_pair(i) || in_class("wish", &t.norm);
            if asks || (used.contains(&i) && !restated(i, clause)) {
                request = true;
                told = true;
            }
            if in_class("media", &t.norm) {
                told = true;
            }
            if used.contains(&i) {
                continue;
            }
            if in_class("context", &t.norm) {
                marker = true;
                continue;
            }
            if in_class("media", &t.norm) {
                media = true;
            }
            if lex.is_filler(&t.norm) || in_class("quiet", &t.norm) {
                continue;
            }
            if in_class("contextword", &t.norm) || (shrinks && in_class("sizeword", &t.norm)) {
                continue;
            }
            if !crate::typos::is_known(&t.norm) {
                unknown = true;
            }
            // A negation marks a statement only beside a marker ("it can't"), and a word the
            // grammar knows may be what is asked.
            // "la tele no la lee", "der Fernseher kann es nicht lesen": a statement's "no".
            const NO: &[&str] = &[
                "no", "non", "ne", "pas", "nicht", "kein", "keine", "não", "nao",
            ];
            if !in_class("negation", &t.norm)
                && !NO.contains(&t.norm.as_str())
                && crate::typos::is_known(&t.norm)
            {
                request = true;
            }
        }
        // A statement led by its subject ("I run a small bakery", "we filmed the choir on an old
        // camcorder", "the school's portal rejects anything over that", "je suis prof") that says
        // nothing only a request says tells the user's story, whatever its words (2026-12-03):
        // an imperative leads with its verb, a question with its asking word.
        let subject_led = clause
            .iter()
            .map(|&i| &tokens[i])
            .find(|t| !(t.kind == Tok::Word && in_class("lead", &t.norm)))
            .is_some_and(|t| t.kind == Tok::Word && in_class("subject", &t.norm));
        // Words of sending, streaming or reaching elsewhere keep a story a request to be read
        // ("my stream key is abcd-…": the scope rules name what they know, the rest is refused
        // as not understood rather than accounted for).
        let elsewhere = clause
            .iter()
            .any(|&i| ELSEWHERE.contains(&tokens[i].norm.as_str()));
        let story = subject_led && !told && !elsewhere && clause.len() > 1;
        if (marker && !request && !(media && unknown)) || story {
            out.push(clause.clone());
        } else if let Some(k) = purpose_at(clause) {
            out.push(clause[k..].to_vec());
        }
        clause.clear();
    };
    for (i, t) in tokens.iter().enumerate() {
        if t.kind == Tok::Sep || (barrier(t) && !used.contains(&i)) {
            close(&mut clause);
        } else {
            clause.push(i);
        }
    }
    close(&mut clause);
    out
}

/// Whether a two-word `@asks` phrase ("mi serve") starts at `i`.
pub(crate) fn asks_pair(tokens: &[Token], i: usize) -> bool {
    lexicon().classes.get("asks").is_some_and(|c| {
        c.iter().any(|p| {
            p.len() == 2
                && tokens[i].norm == p[0]
                && tokens.get(i + 1).is_some_and(|n| n.norm == p[1])
        })
    })
}

/// Words that reach outside the file: never part of a story accounted for as context.
const ELSEWHERE: &[&str] = &[
    "stream",
    "streaming",
    "live",
    "upload",
    "uploading",
    "email",
    "mail",
    "send",
    "post",
    "publish",
    "share",
    "key",
    "password",
    "server",
    "url",
    "link",
    "ftp",
    "rtmp",
    "drive",
    "cloud",
    "dropbox",
];

/// Whether `word` has the shape of a Romance infinitive ("mandar", "analizzare", "envoyer").
fn infinitive(word: &str) -> bool {
    word.chars().count() >= 5 && ["ar", "er", "ir", "re"].iter().any(|e| word.ends_with(e))
}

/// The words of a free `@forbid` word ("not", "don't", "without") right before the phrase at
/// `start` (fillers between, in its clause), with those fillers: what forbids that phrase's
/// change (`intents::forbidden_changes`). `None` when a `@merely` word ("just", "only") stands
/// between ("not just a flag", "not only rotate it": more is asked, not less) or the negation
/// is another rule's word.
pub fn prohibited<T>(tokens: &[Token], hits: &[Hit<T>], start: usize) -> Option<Vec<usize>> {
    let lex = lexicon();
    let owned = |i: usize| hits.iter().any(|h| h.used.contains(&i));
    let mut words = Vec::new();
    let mut i = start;
    while let Some(p) = i.checked_sub(1) {
        let t = &tokens[p];
        if t.kind != Tok::Word || owned(p) || lex.has("merely", &t.norm) {
            return None;
        }
        words.push(p);
        if lex.has("forbid", &t.norm) {
            return Some(words);
        }
        // "instead of speeding it up", "rather than cropping it": what is done in its place is
        // asked elsewhere; the change after it is not wanted (2026-11-29).
        if t.norm == "of"
            && p > 0
            && tokens[p - 1].norm == "instead"
            && tokens[p - 1].kind == Tok::Word
            && !owned(p - 1)
        {
            words.push(p - 1);
            return Some(words);
        }
        // At most three fillers or verbs that ask nothing between ("don't make it", "sin
        // bajar la").
        if !(lex.is_filler(&t.norm) || lex.has("quiet", &t.norm)) || words.len() > 3 {
            return None;
        }
        i = p;
    }
    None
}

/// Whether the phrase starting at `start` is said of the file after a verb of state ("is too
/// quiet", "has an echo", "looks blurry", "ist verzerrt", "è mosso"): a `@state` word right before
/// it (degree words and fillers between), not "has to"/"is to", and no purpose word before it in
/// its clause ("so it is upright", "damit es leiser ist" ask for the state).
pub fn described(tokens: &[Token], start: usize) -> bool {
    let lex = lexicon();
    let in_class = |class: &str, w: &str| lex.has(class, w);
    let mut i = start;
    // "too" before it says a state by itself, whatever comes before ("ist im Vergleich zu
    // anderen Folgen viel zu leise": too quiet compared to other episodes had made it quieter)
    // (2026-11-28).
    let mut too = None;
    let state = loop {
        let Some(p) = i.checked_sub(1) else {
            match too {
                Some(at) => break at,
                None => return false,
            }
        };
        let t = &tokens[p];
        if t.kind != Tok::Word {
            match too {
                Some(at) => break at,
                None => return false,
            }
        }
        if in_class("state", &t.norm) {
            break p;
        }
        // "way to quiet", "is to loud": "too" mistyped, right before the word it qualifies
        // (2026-11-28, eighth pass: it had made a quiet file quieter).
        let mistyped_too = t.norm == "to"
            && p + 1 == start
            && p.checked_sub(1).is_some_and(|q| {
                in_class("state", &tokens[q].norm) || in_class("degree", &tokens[q].norm)
            });
        if in_class("degree", &t.norm) || mistyped_too {
            if t.norm == "too" || mistyped_too {
                too.get_or_insert(p);
            }
            i = p;
            continue;
        }
        if lex.is_filler(&t.norm) && !["so", "be"].contains(&t.norm.as_str()) {
            i = p;
            continue;
        }
        match too {
            Some(at) => break at,
            None => return false,
        }
    };
    if tokens.get(state + 1).is_some_and(|t| t.norm == "to") {
        return false;
    }
    // A purpose before it in the clause: "so (that) it is", "damit", "para que", "pour que".
    !tokens[..state]
        .iter()
        .rev()
        .take_while(|t| t.kind != Tok::Sep)
        .any(|t| in_class("purpose", &t.norm))
}
