//! The default offline translator: plain-language instructions → a task or a probe
//! configuration, by a data-driven grammar. Deterministic; no model, no `llm` calls.
//!
//! How an instruction is read:
//! 1. `tokens` splits it into words, numbers with units (`numbers`) and file names;
//! 2. the rules of `grammar/task.txt` or `grammar/probe.txt` (`grammar`, `pattern`), with
//!    the vocabulary of `grammar/lexicon.txt` (`lexicon`), turn phrases into intents
//!    (`intents`) or probe fields (`probe`);
//! 3. `plan` turns the intents and the inputs' facts (`media`) into a task, choosing
//!    filters (`filters`) and codecs (`formats`).

pub mod filters;
pub mod formats;
pub mod grammar;
pub mod intents;
pub mod japanese;
pub mod lexicon;
pub mod media;
pub mod numbers;
pub mod pattern;
pub mod plan;
pub mod probe;
pub mod recipes;
pub mod scope;
pub mod statements;
pub mod tokens;
pub mod typos;
pub mod wants;

#[cfg(test)]
mod policy_tests;
#[cfg(test)]
mod tests;

pub use mediaforge_plugin::{
    Answer, InputFacts, OfferedRecipe, ProbeConfig, Refusal, StreamFacts, Task,
};

/// Examples quoted when nothing at all was understood.
const EXAMPLES: &str = "convert to webm, extract the audio as mp3, remove the audio, resize to 720p, \
    keep the first 10 seconds, take a thumbnail at 5s, make a gif, compress it, speed it up 2x, \
    rotate 90 degrees clockwise, add the image as a watermark in the top right corner";

const PROBE_EXAMPLES: &str = "how long is it, what is the resolution, which audio codec, bitrate, \
    frame rate, how many frames, channels, sample rate, list the streams";

fn quoted(list: &[String]) -> String {
    list.iter()
        .map(|s| format!("\"{s}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Translates a processing instruction with no recipes on offer (a recipe asked for is
/// refused as not offered); pure, like [`translate`].
pub fn translate_task(instructions: &str, inputs: &[InputFacts]) -> Result<Task, Refusal> {
    match translate(instructions, inputs, &[])? {
        Answer::Task(task) => Ok(task),
        Answer::Recipe(call) => Err(Refusal {
            message: format!("the recipe '{}' was not offered", call.name),
            subject: None,
        }),
    }
}

/// Translates a processing instruction into a task, or into one of the `offered` recipes
/// (`recipes`); pure (no host calls), so tests can run it natively.
pub fn translate(
    instructions: &str,
    inputs: &[InputFacts],
    offered: &[OfferedRecipe],
) -> Result<Answer, Refusal> {
    read(instructions, inputs, offered).map_err(|r| r.refusal)
}

/// The refusal to give whatever else reads the instruction, when this translator's is final:
/// the request was understood and cannot or must not be done as asked (out of scope, a job no
/// task does, a plan the inputs or the request itself rule out, a change said of the wrong
/// thing). A fallback translator (the LLM one, `plugins/llm-translator`) answers only what
/// this one did not understand: asked the rest, a model answers 200 with part of it done.
/// `None` also when the instruction translates (no recipe is offered here, so a named job is
/// refused as not offered, which is final).
pub fn final_refusal(instructions: &str, inputs: &[InputFacts]) -> Option<Refusal> {
    match read(instructions, inputs, &[]) {
        Err(Refused {
            refusal,
            last: true,
        }) => Some(refusal),
        _ => None,
    }
}

/// A probe question's refusal that is final (it asks for what no probe does), as
/// [`final_refusal`].
pub fn final_probe_refusal(instructions: &str) -> Option<Refusal> {
    scope::out_of_scope(instructions).map(|why| Refusal {
        message: format!("Mediaforge cannot {why}. Nothing was run."),
        subject: None,
    })
}

/// A refusal, and whether it is final ([`final_refusal`]) or says what was not understood.
struct Refused {
    refusal: Refusal,
    last: bool,
}

/// A refusal another translator may still answer: something was not understood.
fn unread(refusal: Refusal) -> Refused {
    Refused {
        refusal,
        last: false,
    }
}

/// A refusal no other translator may overrule ([`final_refusal`]).
fn last(refusal: Refusal) -> Refused {
    Refused {
        refusal,
        last: true,
    }
}

fn read(
    instructions: &str,
    inputs: &[InputFacts],
    offered: &[OfferedRecipe],
) -> Result<Answer, Refused> {
    let u = intents::understand(instructions);
    // A clause no task can carry out is refused as such, whatever else is asked: running the
    // rest would answer as if all of it were done.
    // Read as written, and as the word lists read it: an unaccented or other-language word
    // the lists know ("subelo" for "súbelo", "upload") is out of scope too (2026-11-27).
    let read_as = tokens::tokenize(instructions)
        .iter()
        .map(|t| t.norm.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    if let Some(why) = scope::out_of_scope(instructions).or_else(|| scope::out_of_scope(&read_as)) {
        let understood = u.understood();
        let message = if understood.is_empty() || !u.has(intents::Intent::is_action) {
            format!("Mediaforge cannot {why}. Nothing was run.")
        } else {
            format!(
                "I understood {}, but Mediaforge cannot {why}. Nothing was run.",
                understood.join(", ")
            )
        };
        return Err(last(Refusal {
            message,
            subject: None,
        }));
    }
    let unsupported = u.intents().find_map(|i| match i {
        intents::Intent::Unsupported(why) => Some(why.clone()),
        _ => None,
    });
    if let Some(why) = unsupported {
        return Err(last(Refusal {
            message: format!("This cannot be done here: {why}."),
            subject: None,
        }));
    }
    if !u.has(intents::Intent::is_action) {
        let mut message = String::from("I could not find a media operation in this instruction");
        if !u.leftovers.is_empty() {
            message.push_str(&format!(" (I did not understand {})", quoted(&u.leftovers)));
        }
        message.push_str(&format!(". Try wording such as: {EXAMPLES}."));
        return Err(unread(Refusal {
            message,
            subject: u.leftovers.first().cloned(),
        }));
    }
    // A word that changes the meaning was not understood: guessing could do the opposite.
    if let Some(word) = u.dropped.first() {
        let mut message = format!(
            "I understood {}, but not what {} changes, so I did not guess.",
            u.understood().join(", "),
            quoted(&u.dropped)
        );
        if !u.leftovers.is_empty() {
            message.push_str(&format!(" I did not understand {}.", quoted(&u.leftovers)));
        }
        return Err(unread(Refusal {
            message,
            subject: Some(word.clone()),
        }));
    }
    // A word the grammar has never seen may be the thing asked for ("a boomerang of the first
    // 2 seconds"): the rest of its clause must not run as if it were all.
    if !u.unknown.is_empty() && u.unaccounted.is_empty() {
        return Err(unread(Refusal {
            message: format!(
                "I understood {}, but not {}, so I did not run anything rather than guess what it asks for.",
                u.understood().join(", "),
                quoted(&u.unknown)
            ),
            subject: u.unknown.first().cloned(),
        }));
    }
    // A clause of which nothing was understood is refused, not dropped: the answer would
    // otherwise look like the whole request was done.
    if !u.unaccounted.is_empty() {
        return Err(unread(Refusal {
            message: format!(
                "I understood {}, but not {}, so I did not run anything rather than leave part of the request undone.",
                u.understood().join(", "),
                quoted(&u.unaccounted)
            ),
            subject: u.unaccounted.first().cloned(),
        }));
    }
    // A number no rule used belongs to something asked ("from second 5", "10 px in from the
    // edges"): running without it would answer with another number, or none.
    // A count of the inputs given ("join the two clips") is what it says.
    let loose: Vec<String> = u
        .loose
        .iter()
        .filter(|(_, count)| count.is_none_or(|n| n != inputs.len() as f64))
        .map(|(text, _)| text.clone())
        .collect();
    if !loose.is_empty() {
        return Err(unread(Refusal {
            message: format!(
                "I understood {}, but not what {} refers to, so I did not run anything rather than guess.",
                u.understood().join(", "),
                quoted(&loose)
            ),
            subject: loose.first().cloned(),
        }));
    }
    if let Some(answer) = recipes::answer(&u, offered) {
        // A recipe not offered, or two asked at once: understood, and not doable as asked.
        return answer.map_err(last);
    }
    // A word naming a job no task does ("with a vtt file" beside thumbnails) that no rule used:
    // a task would answer as if that part were done.
    if let Some(part) = recipes::unused_job_words(&u) {
        return Err(last(Refusal {
            message: format!(
                "I understood {}, but not what \"{part}\" asks for, so I did not run anything rather than leave part of the request undone.",
                u.understood().join(", ")
            ),
            subject: Some(part),
        }));
    }
    let task = plan::plan(&u, inputs).map_err(|why| {
        let mut message = format!("I understood {}, but {why}.", u.understood().join(", "));
        if !u.leftovers.is_empty() {
            message.push_str(&format!(" I did not understand {}.", quoted(&u.leftovers)));
        }
        last(Refusal {
            message,
            subject: None,
        })
    })?;
    // An input given but used by no part of the task (a second clip, a song, a logo) was
    // part of the request: an answer without it would look like all of it was done.
    let unused: Vec<&str> = inputs
        .iter()
        .map(|f| f.name.as_str())
        .filter(|name| !task.inputs.iter().any(|i| i.file_path == *name))
        .collect();
    if let Some(first) = unused.first() {
        return Err(unread(Refusal {
            message: format!(
                "I understood {}, but not what to do with {}, so I did not run anything rather than leave part of the request undone.",
                u.understood().join(", "),
                unused
                    .iter()
                    .map(|n| format!("\"{n}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            subject: Some(first.to_string()),
        }));
    }
    Ok(Answer::Task(task))
}

/// Translates a probe question; pure, like [`translate_task`].
pub fn translate_probe(instructions: &str) -> Result<ProbeConfig, Refusal> {
    let (asked, leftovers) = probe::understand(instructions);
    let unanswered = probe::unanswered(instructions);
    if !asked.is_empty() && !unanswered.is_empty() {
        return Err(Refusal {
            message: format!(
                "I understood {}, but not {}, so I did not answer rather than leave part of the question unanswered.",
                asked
                    .iter()
                    .map(|(_, _, w)| format!("\"{w}\""))
                    .collect::<Vec<_>>()
                    .join(", "),
                quoted(&unanswered)
            ),
            subject: unanswered.first().cloned(),
        });
    }
    let keys: Vec<(String, Option<String>)> = asked
        .iter()
        .map(|(k, q, _)| (k.clone(), q.clone()))
        .collect();
    probe::config(&keys).ok_or_else(|| {
        let mut message =
            String::from("I could not find a question about the file in this instruction");
        if !leftovers.is_empty() {
            message.push_str(&format!(" (I did not understand {})", quoted(&leftovers)));
        }
        message.push_str(&format!(". Try asking: {PROBE_EXAMPLES}."));
        Refusal {
            message,
            subject: leftovers.first().cloned(),
        }
    })
}

/// The default translator as an SDK plugin: exported by the `translator-component` package
/// (`component/`); this crate exports nothing itself, so another plugin can wrap it (implement
/// `Translator` and call these methods, or the pure functions above). It takes no config.
pub struct DefaultTranslator;

impl mediaforge_plugin::Translator for DefaultTranslator {
    type Config = mediaforge_plugin::NoConfig;

    fn translate_task(
        _config: &mediaforge_plugin::NoConfig,
        instructions: String,
        inputs: Vec<InputFacts>,
    ) -> Result<Task, Refusal> {
        logged("translation", translate_task(&instructions, &inputs))
    }

    fn translate(
        _config: &mediaforge_plugin::NoConfig,
        instructions: String,
        inputs: Vec<InputFacts>,
        recipes: Vec<OfferedRecipe>,
    ) -> Result<Answer, Refusal> {
        logged("translation", translate(&instructions, &inputs, &recipes))
    }

    fn translate_probe(
        _config: &mediaforge_plugin::NoConfig,
        instructions: String,
        _input: InputFacts,
    ) -> Result<ProbeConfig, Refusal> {
        logged("probe translation", translate_probe(&instructions))
    }
}

/// A refusal is logged at info level (WebAssembly only: natively there is no host).
fn logged<T>(what: &str, result: Result<T, Refusal>) -> Result<T, Refusal> {
    #[cfg(target_arch = "wasm32")]
    if let Err(r) = &result {
        let message = format!("{what} refused: {}", r.message);
        mediaforge_plugin::log(mediaforge_plugin::LogLevel::Info, &message);
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = what;
    result
}
