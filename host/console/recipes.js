// Recipes in the console: the list from GET /recipes, a form made from the chosen recipe's JSON
// Schema (numbers, booleans, choices, lists of numbers), and a run on the task's inputs whose
// outputs, data and playback URL are shown (a streaming result plays in the page). The schema is the recipe plugin's; nothing here
// knows a recipe by name.

import { api } from "/console/api.js";
import { player } from "/console/player.js";
import { el, fill } from "/console/view.js";

const $ = (id) => document.getElementById(id);

/** The form's fields for an object schema: one labelled input per property. */
export function fields(schema) {
  return Object.entries(schema?.properties ?? {}).map(([name, prop]) => {
    const id = `recipe-param-${name}`;
    const hint = prop.description ?? "";
    const common = { id, name, "data-param": name, title: hint };
    let input;
    if (Array.isArray(prop.enum)) {
      input = el("select", common, prop.enum.map((v) =>
        el("option", { value: v, selected: v === prop.default }, v)));
    } else if (prop.type === "boolean") {
      input = el("input", { ...common, type: "checkbox", checked: prop.default === true });
    } else if (prop.type === "integer" || prop.type === "number") {
      input = el("input", {
        ...common, type: "number", min: prop.minimum, max: prop.maximum,
        step: prop.type === "integer" ? 1 : "any", value: prop.default,
      });
    } else if (prop.type === "array") {
      input = el("input", {
        ...common, type: "text", placeholder: "comma-separated",
        value: Array.isArray(prop.default) ? prop.default.join(", ") : "",
      });
    } else {
      input = el("input", { ...common, type: "text", value: prop.default ?? "" });
    }
    return el("label", { class: "param" }, el("span", {}, name), input, el("small", { class: "muted" }, hint));
  });
}

/** The params the form holds, typed as the schema says; an empty field is left to the default. */
export function params(form, schema) {
  const out = {};
  for (const [name, prop] of Object.entries(schema?.properties ?? {})) {
    const input = form.querySelector(`[data-param="${CSS.escape(name)}"]`);
    if (!input) continue;
    if (prop.type === "boolean") {
      if (input.checked !== (prop.default === true)) out[name] = input.checked;
      continue;
    }
    const raw = input.value.trim();
    if (raw === "") continue;
    if (prop.type === "integer" || prop.type === "number") {
      out[name] = Number(raw);
    } else if (prop.type === "array") {
      out[name] = raw.split(",").map((s) => s.trim()).filter(Boolean)
        .map((s) => (["integer", "number"].includes(prop.items?.type) ? Number(s) : s));
    } else {
      out[name] = raw;
    }
  }
  return out;
}

/**
 * Sets up the recipe panel. `inputs()` gives the task's input paths, `showOutputs(result,
 * dirId)` previews outputs, `after()` refreshes what a run changes (usage, directories).
 */
export function setupRecipes({ inputs, showOutputs, after }) {
  let recipes = [];
  const chosen = () => recipes.find((r) => r.name === $("recipe-select").value);
  const render = () => {
    const r = chosen();
    $("recipe-description").textContent = r ? `${r.description} (${r.min_inputs === r.max_inputs ? r.min_inputs : `${r.min_inputs}-${r.max_inputs}`} input(s))` : "";
    fill($("recipe-form"), r ? fields(r.params_schema) : []);
  };
  $("recipe-select").addEventListener("change", render);
  $("recipe-run").addEventListener("click", async () => {
    const r = chosen();
    if (!r) return;
    const status = $("recipe-status");
    const body = { inputs: inputs(), params: params($("recipe-form"), r.params_schema) };
    status.textContent = "running…";
    status.className = "muted";
    fill($("recipe-data"));
    $("recipe-run").disabled = true;
    const started = performance.now();
    try {
      const answer = await api("POST", `/recipes/${encodeURIComponent(r.name)}`, body);
      status.textContent = `done in ${((performance.now() - started) / 1000).toFixed(1)} s · ${answer.result.length} file(s) · ${answer.steps.length} step(s)`;
      status.className = "ok";
      fill($("recipe-data"),
        answer.playback_url
          ? el("p", {}, "Plays from here: ", el("a", { href: answer.playback_url, "data-testid": "recipe-playback", target: "_blank", rel: "noreferrer" }, answer.playback_url))
          : null,
        answer.playback_url ? player(answer.playback_url) : null,
        answer.data === null ? null : el("pre", { class: "data" }, JSON.stringify(answer.data, null, 2)));
      showOutputs(answer.result, answer.output_dir_id);
      await after();
    } catch (e) {
      status.textContent = e.message;
      status.className = "error";
      if (e.details) status.title = e.details;
    } finally {
      $("recipe-run").disabled = false;
    }
  });
  return async function load() {
    try {
      ({ recipes } = await api("GET", "/recipes"));
    } catch (e) {
      $("recipe-description").textContent = e.message;
      return;
    }
    fill($("recipe-select"), recipes.map((r) => el("option", { value: r.name }, r.name)));
    render();
  };
}
