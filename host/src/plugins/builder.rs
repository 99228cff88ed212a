//! Calls into the command-builder plugin.

use super::types::{BuiltCommand, BuiltProbe, StagedInput};
use super::{PluginError, PluginHost, World};
use crate::task::{ProbeConfig, Task};

impl PluginHost {
    pub async fn build_task(
        &self,
        task: &Task,
        inputs: &[StagedInput],
        output_dir: &str,
    ) -> Result<BuiltCommand, PluginError> {
        // The call's future owns its arguments: the plugin may run across many polls.
        let (task, inputs, output_dir) = (task.clone(), inputs.to_vec(), output_dir.to_string());
        self.call(
            |w| w.builder.as_ref(),
            World::CommandBuilder,
            move |b, store| {
                Box::pin(async move { b.build_task(store, &task, &inputs, &output_dir).await })
            },
        )
        .await
    }

    pub async fn build_probe(
        &self,
        probe: &ProbeConfig,
        input_path: &str,
    ) -> Result<BuiltProbe, PluginError> {
        let (probe, input_path) = (probe.clone(), input_path.to_string());
        self.call(
            |w| w.builder.as_ref(),
            World::CommandBuilder,
            move |b, store| {
                Box::pin(async move { b.build_probe(store, &probe, &input_path).await })
            },
        )
        .await
    }
}
