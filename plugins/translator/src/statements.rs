//! What a clause tells rather than asks: a negation of what a device or site takes ("my TV
//! can't play HEVC") and a change said of what was done to the file ("my phone recorded it at
//! 4k", "it was compressed by whatsapp"). Read as asked, each had answered with that change
//! made (2026-12-03); `intents::understand` refuses them by name.

use crate::grammar::{Hit, asks_pair, clause_numbers};
use crate::lexicon::lexicon;
use crate::tokens::{Tok, Token};

/// What a statement's negation says does not work ("my TV can't play HEVC", "the site won't
/// accept webm", "la tele no lee hevc"). Read as asked, each had answered with exactly that
/// (2026-12-03).
#[derive(Debug, Default)]
pub struct Negated {
    /// Negations beside a change of a kind asked nowhere else: refused as not understood,
    /// like a free "not" (`grammar::dropped_meaning`).
    pub words: Vec<String>,
    /// The hits (indices) of changes said not to work where the same kind is asked elsewhere
    /// ("the site won't accept webm, convert it to mp4"; "el reproductor del coche no lee wav"
    /// beside "tone.wav en mp3"): what is asked decides, and these ask nothing.
    pub not_wanted: Vec<usize>,
}

/// The negations of statements in `tokens` and what they are said of. `is_change` says which
/// changes count: not a format for a device ("doesn't play on my iPhone": one that plays there
/// is what is asked).
pub fn negated_statements<T>(
    tokens: &[Token],
    hits: &[Hit<T>],
    is_change: impl Fn(&T) -> bool,
) -> Negated {
    let lex = lexicon();
    let clause = clause_numbers(tokens);
    let used: std::collections::HashSet<usize> =
        hits.iter().flat_map(|h| h.used.iter().copied()).collect();
    let mut out = Negated::default();
    for (i, t) in tokens.iter().enumerate() {
        if t.kind != Tok::Word
            || used.contains(&i)
            || lex.has("negation", &t.norm)
            || !(STATEMENT_NOT.contains(&t.norm.as_str()) || lex.has("forbid", &t.norm))
        {
            continue;
        }
        // Portuguese "no" is "in the" ("pra tocar no celular"): a statement's "no" stands
        // before its verb ("la tele no lee", "no acepta webm"), not before a noun of the story.
        let next = tokens.get(i + 1).filter(|n| n.kind == Tok::Word);
        if t.norm == "no"
            && !next.is_some_and(|n| {
                lex.has("context", &n.norm)
                    || lex.has("contextword", &n.norm)
                    || !(crate::typos::is_known(&n.norm)
                        || lex.is_filler(&n.norm)
                        || lex.has("quiet", &n.norm))
            })
        {
            continue;
        }
        let c = clause[i];
        // What the negation is said of: a change after it in its clause, before another
        // statement's verb ("discord won't take my clip, it's too big": the size is another
        // statement, and what is asked).
        let object_of = |j: usize| {
            j > i && clause[j] == c && !(i + 1..j).any(|k| lex.has("state", &tokens[k].norm))
        };
        for (k, h) in hits.iter().enumerate() {
            if !is_change(&h.value) || !h.used.first().is_some_and(|&j| object_of(j)) {
                continue;
            }
            let asked_elsewhere = hits.iter().any(|o| {
                std::mem::discriminant(&o.value) == std::mem::discriminant(&h.value)
                    && !o.used.is_empty()
                    && o.used.iter().all(|&j| clause[j] != c)
            });
            if asked_elsewhere {
                out.not_wanted.push(k);
            } else if !out.words.contains(&t.norm) {
                out.words.push(t.norm.clone());
            }
        }
    }
    out
}

/// The negations a statement says ("can't", "won't", "no lee", "kann nicht"), beside the
/// `@negation` and `@forbid` words a request says.
const STATEMENT_NOT: &[&str] = &[
    "cant", "cannot", "couldnt", "wont", "wouldnt", "doesnt", "didnt", "isnt", "arent", "wasnt",
    "werent", "hasnt", "havent", "non", "ne", "pas", "nicht", "kein", "keine", "keinen", "não",
    "nao", "nunca", "jamais", "mai",
];

/// Whether the phrase starting at `start` tells what someone or something did to the file
/// rather than asks for it ("my phone recorded it at 4k", "someone muted it", "whatsapp
/// compresses it to 480p anyway", "the tv shows it upside down"): its clause is led by an
/// `@agent` (after `@lead` words; "the" before one), holds no `@asks` or `@wish` word, and no
/// `@purpose` word stands between the agent and the phrase ("we need it so it is upright").
/// Read as asked, each had answered with that change made (2026-12-03).
pub fn narrated(tokens: &[Token], start: usize) -> bool {
    let lex = lexicon();
    let in_class = |class: &str, w: &str| lex.has(class, w);
    let clause = clause_numbers(tokens);
    let here: Vec<usize> = (0..tokens.len())
        .filter(|&i| clause[i] == clause[start])
        .collect();
    let words: Vec<usize> = here
        .iter()
        .copied()
        .filter(|&i| tokens[i].kind == Tok::Word)
        .collect();
    // "after whatsapp compressed it", "since the app muted it": a subordinate clause's subject.
    const SUBORDINATE: &[&str] = &["after", "since", "because", "cuz", "cause", "when", "once"];
    let Some(lead) = here.iter().copied().find(|&i| {
        !(tokens[i].kind == Tok::Word
            && (in_class("lead", &tokens[i].norm)
                || SUBORDINATE.contains(&tokens[i].norm.as_str())))
    }) else {
        return false;
    };
    let agent = |i: usize| {
        tokens
            .get(i)
            .is_some_and(|t| t.kind == Tok::Word && in_class("agent", &t.norm))
    };
    let the = |i: usize| ["the", "my", "our", "their"].contains(&tokens[i].norm.as_str());
    let subject = if tokens[lead].kind == Tok::Word && tokens[lead].norm == "the" {
        lead + 1
    } else {
        lead
    };
    // Who did it, said after ("muted by instagram", "converted to 480p by the app"), or where
    // it came from ("this came out of capcut in 4k", "it comes from my phone in slow motion").
    let by_agent = words.iter().any(|&i| {
        tokens[i].norm == "by"
            && (agent(i + 1) || (i + 2 < tokens.len() && the(i + 1) && agent(i + 2)))
    });
    let came_from = words.iter().any(|&i| {
        i < start
            && ["came", "comes", "come", "coming"].contains(&tokens[i].norm.as_str())
            && tokens
                .get(i + 1)
                .is_some_and(|n| ["from", "out", "off"].contains(&n.norm.as_str()))
    });
    // "it was converted to 480p", "it's been muted", "it got compressed": done to it, said in
    // the passive (a verb right after "was"; "was too big" is a state, `described`).
    let done_to = words.iter().any(|&i| {
        i < start
            && ["was", "were", "got", "been"].contains(&tokens[i].norm.as_str())
            && tokens[i + 1].kind == Tok::Word
            && !(in_class("degree", &tokens[i + 1].norm)
                || lex.is_filler(&tokens[i + 1].norm)
                || in_class("state", &tokens[i + 1].norm))
    });
    if !(by_agent || came_from || done_to) && (subject >= start || !agent(subject)) {
        return false;
    }
    // "it got converted", "it was exported": a passive's verb asks nothing.
    let passive = |i: usize| i > 0 && in_class("state", &tokens[i - 1].norm);
    // "my old phone could only record 480p": a modal after the agent says what it could do;
    // "could you", "can we" ask.
    let ability = |i: usize| {
        ["could", "can", "would", "will"].contains(&tokens[i].norm.as_str())
            && i > 0
            && agent(i - 1)
            && !tokens
                .get(i + 1)
                .is_some_and(|n| ["you", "we", "i"].contains(&n.norm.as_str()))
    };
    let asks = words.iter().any(|&i| {
        (in_class("asks", &tokens[i].norm) && !passive(i) && !ability(i))
            || in_class("wish", &tokens[i].norm)
            || asks_pair(tokens, i)
    });
    let purpose = words
        .iter()
        .any(|&i| i > lead && i < start && in_class("purpose", &tokens[i].norm));
    // "my html5 player only accepts vtt captions": what a player or a site takes is what is
    // wanted, not what was done.
    // Nor what someone reports ("whatsapp says 'file too large'"): a state, said by another.
    #[rustfmt::skip]
    const TAKES: &[&str] = &[
        "accepts", "accept", "takes", "supports", "support", "plays", "play", "reads", "read",
        "handles", "requires", "require", "expects", "wants", "needs", "likes", "prefers",
        "understands", "recognizes", "recognises", "opens", "allows", "says", "said",
        "told", "tells",
    ];
    if words
        .iter()
        .any(|&i| TAKES.contains(&tokens[i].norm.as_str()))
    {
        return false;
    }
    // "my TV can't play HEVC": what does not work, refused as such (`negated_statements`).
    let negated = words
        .iter()
        .any(|&i| STATEMENT_NOT.contains(&tokens[i].norm.as_str()));
    !asks && !purpose && !negated
}
