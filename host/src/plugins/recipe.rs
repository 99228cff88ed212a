//! Calls into the recipe plugin.

use super::types::{InputFacts, RecipeInfo, RecipePlan, StepResult};
use super::{PluginError, PluginHost, World};

impl PluginHost {
    /// The recipes the loaded recipe plugin offers.
    pub async fn recipes(&self) -> Result<Vec<RecipeInfo>, PluginError> {
        self.call(
            |w| w.recipe.as_ref(),
            World::Recipe,
            move |r, store| Box::pin(async move { Ok(Ok(r.recipes(store).await?)) }),
        )
        .await
    }

    /// The next steps of `recipe`, given the results so far.
    pub async fn plan_recipe(
        &self,
        recipe: &str,
        params: &str,
        inputs: &[InputFacts],
        results: &[StepResult],
    ) -> Result<RecipePlan, PluginError> {
        let (recipe, params) = (recipe.to_string(), params.to_string());
        let (inputs, results) = (inputs.to_vec(), results.to_vec());
        self.call(
            |w| w.recipe.as_ref(),
            World::Recipe,
            move |r, store| {
                Box::pin(async move { r.plan(store, &recipe, &params, &inputs, &results).await })
            },
        )
        .await
    }
}
