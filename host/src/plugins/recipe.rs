//! Calls into the recipe plugins: `plugins.recipe` (the built-in recipes by default) and then
//! `plugins.extra_recipes`. Their recipes are read once per loaded set of plugins (a reload
//! reads them again); a recipe named as an earlier plugin's replaces it, so an operator adds
//! recipes, or replaces one, without touching the others.

use std::sync::Arc;

use super::types::{InputFacts, RecipeInfo, RecipePlan, StepResult};
use super::{PluginError, PluginHost, World, Worlds};

/// Every recipe offered, each with the index (in `Worlds::recipes`) of the plugin that plans it.
pub struct Catalog(Vec<(RecipeInfo, usize)>);

impl PluginHost {
    /// The recipes the loaded recipe plugins offer.
    pub async fn recipes(&self) -> Result<Vec<RecipeInfo>, PluginError> {
        let worlds = self.worlds();
        let catalog = self.catalog(&worlds).await?;
        Ok(catalog.0.iter().map(|(info, _)| info.clone()).collect())
    }

    /// The next steps of `recipe`, given the results so far, from the plugin that offers it.
    pub async fn plan_recipe(
        &self,
        recipe: &str,
        params: &str,
        inputs: &[InputFacts],
        results: &[StepResult],
    ) -> Result<RecipePlan, PluginError> {
        let worlds = self.worlds();
        let catalog = self.catalog(&worlds).await?;
        // Callers ask only for listed recipes; one that is not is the first plugin's to refuse.
        let owner = catalog
            .0
            .iter()
            .find(|(info, _)| info.name == recipe)
            .map_or(0, |(_, i)| *i);
        let loaded = worlds
            .recipes
            .get(owner)
            .ok_or(PluginError::Missing(World::Recipe.name()))?;
        let (recipe, params) = (recipe.to_string(), params.to_string());
        let (inputs, results) = (inputs.to_vec(), results.to_vec());
        self.call_loaded(loaded, World::Recipe, move |r, store| {
            Box::pin(async move { r.plan(store, &recipe, &params, &inputs, &results).await })
        })
        .await
    }

    async fn catalog(&self, worlds: &Arc<Worlds>) -> Result<Arc<Catalog>, PluginError> {
        worlds
            .catalog
            .get_or_try_init(|| async {
                if worlds.recipes.is_empty() {
                    return Err(PluginError::Missing(World::Recipe.name()));
                }
                let mut offered: Vec<(RecipeInfo, usize)> = Vec::new();
                for (i, loaded) in worlds.recipes.iter().enumerate() {
                    let list = self
                        .call_loaded(loaded, World::Recipe, move |r, store| {
                            Box::pin(async move { Ok(Ok(r.recipes(store).await?)) })
                        })
                        .await?;
                    for info in list {
                        match offered.iter_mut().find(|(o, _)| o.name == info.name) {
                            Some(earlier) => {
                                tracing::info!(
                                    "recipe '{}' of {} replaces the one of {}",
                                    info.name,
                                    loaded.path.display(),
                                    worlds.recipes[earlier.1].path.display()
                                );
                                *earlier = (info, i);
                            }
                            None => offered.push((info, i)),
                        }
                    }
                }
                Ok(Arc::new(Catalog(offered)))
            })
            .await
            .cloned()
    }
}
