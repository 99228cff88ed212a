//! An example translator: house phrases on top of the default offline translator.
//!
//! A phrase of the phrasebook ("make it instagram ready", "podcast version") is replaced by
//! wording the default translator understands ([`phrasebook::rewrite`]), and the instruction
//! then goes to the default translator (the `translator` crate, used as a library). So a house
//! phrase combines with everything else the default translator reads ("podcast version of the
//! first 10 minutes"), and the resulting task is the default translator's, checked by the
//! command builder like any other. Instructions without a house phrase, and probe questions,
//! go to the default translator unchanged.
//!
//! The logic is plain Rust ([`translate_task`], [`translate_probe`]), tested natively; only
//! the `glue` module touches the host, and it is built for WebAssembly alone.

wit_bindgen::generate!({
    path: "../../../wit",
    world: "translator",
    // Share the `types` records (task, refusal, …) with the default translator.
    with: {
        "mediaforge:plugin/types@0.1.0": translator::mediaforge::plugin::types,
    },
    generate_all,
});

pub mod phrasebook;

pub use translator::exports::mediaforge::plugin::translate::{InputFacts, StreamFacts};
use translator::mediaforge::plugin::types::{ProbeConfig, Refusal, Task};

/// Rewrites a house phrase, then translates with the default translator. A refusal of a
/// rewritten instruction says how the phrase was read, since the default translator quotes
/// the rewritten words, not the tenant's.
pub fn translate_task(instructions: &str, inputs: &[InputFacts]) -> Result<Task, Refusal> {
    let Some(rewritten) = phrasebook::rewrite(instructions)? else {
        return translator::translate_task(instructions, inputs);
    };
    translator::translate_task(&rewritten.text, inputs).map_err(|mut refusal| {
        refusal.message.push_str(&format!(
            " (\"{}\" is read as: {}.)",
            rewritten.written, rewritten.means
        ));
        refusal
    })
}

/// Questions about a file have no house phrases.
pub fn translate_probe(instructions: &str) -> Result<ProbeConfig, Refusal> {
    translator::translate_probe(instructions)
}

/// The exported functions. Only built for WebAssembly: a native build (the tests) cannot
/// export component names, and has no host to call. The `translate` records are this crate's
/// own bindings, so the input facts are converted to the default translator's (same fields).
#[cfg(target_arch = "wasm32")]
mod glue {
    use crate::exports::mediaforge::plugin::translate as wit;
    use crate::mediaforge::plugin::host;
    use translator::mediaforge::plugin::types::{LogLevel, ProbeConfig, Refusal, Task};

    struct Phrasebook;

    impl wit::Guest for Phrasebook {
        fn translate_task(
            instructions: String,
            inputs: Vec<wit::InputFacts>,
        ) -> Result<Task, Refusal> {
            let inputs: Vec<crate::InputFacts> = inputs.into_iter().map(facts).collect();
            let result = crate::translate_task(&instructions, &inputs);
            if let Err(r) = &result {
                host::log(
                    LogLevel::Info,
                    &format!("translation refused: {}", r.message),
                );
            }
            result
        }

        fn translate_probe(
            instructions: String,
            _input: wit::InputFacts,
        ) -> Result<ProbeConfig, Refusal> {
            crate::translate_probe(&instructions)
        }
    }

    fn facts(f: wit::InputFacts) -> crate::InputFacts {
        crate::InputFacts {
            name: f.name,
            size: f.size,
            container: f.container,
            duration: f.duration,
            streams: f
                .streams
                .into_iter()
                .map(|s| crate::StreamFacts {
                    index: s.index,
                    kind: s.kind,
                    codec: s.codec,
                    width: s.width,
                    height: s.height,
                    frame_rate: s.frame_rate,
                    channels: s.channels,
                    sample_rate: s.sample_rate,
                    duration: s.duration,
                })
                .collect(),
        }
    }

    crate::export!(Phrasebook with_types_in crate);
}

#[cfg(test)]
mod tests;
