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
//! The logic is plain Rust ([`translate_task`], [`translate_probe`]), tested natively; the SDK
//! (`mediaforge-plugin`) exports it, and the default translator's types are the SDK's, so
//! tasks and facts pass between the two as they are.

pub mod phrasebook;

pub use mediaforge_plugin::{InputFacts, StreamFacts};
use mediaforge_plugin::{LogLevel, NoConfig, ProbeConfig, Refusal, Task};

/// The plugin: the default translator with a phrasebook in front. No config.
pub struct Phrasebook;

impl mediaforge_plugin::Translator for Phrasebook {
    type Config = NoConfig;

    fn translate_task(
        _: &NoConfig,
        instructions: String,
        inputs: Vec<InputFacts>,
    ) -> Result<Task, Refusal> {
        let result = translate_task(&instructions, &inputs);
        if let Err(r) = &result {
            mediaforge_plugin::log(
                LogLevel::Info,
                &format!("translation refused: {}", r.message),
            );
        }
        result
    }

    fn translate_probe(
        _: &NoConfig,
        instructions: String,
        _: InputFacts,
    ) -> Result<ProbeConfig, Refusal> {
        translate_probe(&instructions)
    }
}

mediaforge_plugin::export_translator!(Phrasebook);

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

#[cfg(test)]
mod tests;
