// The console: directories and files, the task editor with its live dry run, plain-language
// requests, runs and jobs, previews and usage. Everything goes through the public API (api.js).

import { api, ApiError, followJob, forgetKey, saveKey, savedKey, tusUpload } from "/console/api.js";
import { player } from "/console/player.js";
import { setupRecipes } from "/console/recipes.js";
import {
  bytes, dryRunOk, dryRunRefused, el, fill, mediaElement, mediaKind, probeTables, timeLeft,
} from "/console/view.js";

const $ = (id) => document.getElementById(id);
const enc = encodeURIComponent;
const DRY_RUN_DELAY_MS = 350;
const TERMINAL = new Set(["completed", "failed", "cancelled"]);
// Event streams followed at once. A browser keeps at most six connections to one server, and
// each stream holds one for as long as its job runs: with more streams than that, every other
// request of the page (the new job's own submission and stream among them) waits for a job to
// end. The page's own jobs are streamed first; the rest are refreshed by polling the list.
const MAX_STREAMS = 2;
const POLL_MS = 2000;

const state = {
  dirs: [],
  dir: null, // the selected directory's entry
  jobs: new Map(), // job id -> { row, controller }
  jobPoll: null, // the timer that refreshes jobs not streamed
  mine: new Set(), // jobs submitted from this page: their outputs are previewed when done
  dryRunSeq: 0,
  template: null, // the editor text the console wrote itself (replaced freely by "Use")
};

// ---- messages ------------------------------------------------------------------------------

function say(text, kind = "info") {
  const m = $("message");
  m.textContent = text;
  m.className = `message ${kind}`;
  m.hidden = !text;
}

function failed(e) {
  say(e instanceof ApiError ? e.message : String(e), "error");
}

// ---- connecting ----------------------------------------------------------------------------

async function connect(key) {
  if (!key) {
    say("Enter an API key", "error");
    return;
  }
  $("connect").disabled = true;
  try {
    const usage = await api("GET", "/usage", undefined, key);
    saveKey(key);
    $("api-key").value = "";
    $("api-key").placeholder = "connected";
    $("disconnect").hidden = false;
    $("main").classList.remove("disabled");
    say(`Connected: plan ${usage.plan.name}`, "ok");
    renderUsage(usage);
    await Promise.all([loadDirs(), loadJobs(), loadRecipes()]);
  } catch (e) {
    forgetKey();
    $("main").classList.add("disabled");
    failed(e);
  } finally {
    $("connect").disabled = false;
  }
}

function disconnect() {
  forgetKey();
  for (const job of state.jobs.values()) job.controller?.abort();
  location.reload();
}

// ---- usage ---------------------------------------------------------------------------------

async function refreshUsage() {
  try {
    renderUsage(await api("GET", "/usage"));
  } catch (e) {
    failed(e);
  }
}

/** The month's processed input against the plan's quota (GB are binary, as the plans'). */
function renderUsage(u) {
  const used = u.usage.input_size_gb;
  const quota = u.plan.monthly_quota_gb;
  const pct = quota > 0 ? Math.min(100, (used / quota) * 100) : 0;
  fill($("usage"),
    el("div", { class: "usage-line" },
      el("strong", {}, `${bytes(used * 2 ** 30)} of ${quota} GB`),
      ` processed in ${u.month} (${pct < 0.1 && used > 0 ? "< 0.1" : pct.toFixed(1)} %)`),
    el("meter", { min: 0, max: quota || 1, value: used, high: quota * 0.8, optimum: 0, "data-testid": "usage-meter" }),
    el("div", { class: "muted" },
      `plan ${u.plan.name} · files up to ${u.plan.max_file_size_mb} MB · ${u.remaining_gb.toFixed(2)} GB left · ${u.usage.gb_sec.toPrecision(3)} GB·s`),
  );
}

// ---- directories and files -----------------------------------------------------------------

async function loadDirs() {
  const { directories } = await api("GET", "/directory");
  state.dirs = directories.sort((a, b) => b.added_on.localeCompare(a.added_on));
  state.dir = state.dirs.find((d) => d.id === state.dir?.id) ?? state.dirs[0] ?? null;
  renderDirs();
  await loadFiles();
}

function renderDirs() {
  const list = $("directories");
  fill(list,
    ...state.dirs.map((d) =>
      el("li", { class: d.id === state.dir?.id ? "selected" : null, "data-dir": d.id },
        el("button", { type: "button", class: "link", onclick: () => selectDir(d) }, d.id),
        el("span", { class: "ttl", "data-added": d.added_on, "data-ttl": d.ttl }, timeLeft(d.added_on, d.ttl)),
      ),
    ),
  );
  if (!state.dirs.length) list.append(el("li", { class: "muted" }, "No directory yet: make one, or drop a file."));
}

async function selectDir(d) {
  state.dir = d;
  renderDirs();
  await loadFiles();
}

async function newDirectory() {
  try {
    const { directory } = await api("POST", "/directory", { ttl: Number($("ttl").value) });
    state.dir = { id: directory.id, ttl: directory.ttl, added_on: new Date().toISOString() };
    await loadDirs();
  } catch (e) {
    failed(e);
  }
}

async function loadFiles() {
  const list = $("files");
  const d = state.dir;
  $("files-dir").textContent = d ? `in ${d.id}` : "";
  if (!d) {
    fill(list);
    return;
  }
  const { files } = await api("GET", `/directory/${enc(d.id)}`);
  const infos = await Promise.all(
    files.map((f) => api("GET", `/file/${enc(d.id)}/${enc(f.file_name)}`).then((r) => r.file_info, () => null)),
  );
  fill(list, ...files.map((f, i) => fileRow(d, f, infos[i])));
  if (!files.length) list.append(el("li", { class: "muted" }, "Empty: drop files above."));
}

function fileRow(d, f, info) {
  const path = `${d.id}/${f.file_name}`;
  const type = info?.file_type ?? "";
  const uploaded = (info?.file_size ?? 0) > 0;
  const del = el("button", { type: "button", class: "small danger" }, "Delete");
  del.addEventListener("click", async () => {
    if (del.dataset.armed !== "yes") {
      del.dataset.armed = "yes";
      del.textContent = "Sure?";
      setTimeout(() => { del.dataset.armed = ""; del.textContent = "Delete"; }, 3000);
      return;
    }
    try {
      await api("DELETE", `/file/${enc(d.id)}/${enc(f.file_name)}`);
      await loadFiles();
    } catch (e) {
      failed(e);
    }
  });
  return el("li", { "data-file": f.file_name },
    el("div", { class: "file-name" }, f.file_name),
    el("div", { class: "muted" },
      uploaded ? `${bytes(info.file_size)}${type ? ` · ${type}` : ""}` : "not uploaded",
      " · ",
      el("span", { class: "ttl", "data-added": d.added_on, "data-ttl": d.ttl }, timeLeft(d.added_on, d.ttl))),
    el("div", { class: "actions" },
      el("button", { type: "button", class: "small", onclick: () => useInput(path, f.file_name, type) }, "Use"),
      uploaded ? el("button", { type: "button", class: "small", onclick: () => previewFile(d.id, f.file_name) }, "Preview") : null,
      uploaded ? el("button", { type: "button", class: "small", onclick: () => download(d.id, f.file_name) }, "Download") : null,
      del),
  );
}

async function download(dirId, name) {
  try {
    const { download } = await api("GET", `/file/download/${enc(dirId)}/${enc(name)}`);
    el("a", { href: download.url, download: name }).click();
  } catch (e) {
    failed(e);
  }
}

// ---- uploads -------------------------------------------------------------------------------

async function uploadAll(fileList) {
  const files = [...fileList];
  if (!files.length) return;
  try {
    if (!state.dir) await newDirectory();
    const d = state.dir;
    await Promise.all(files.map((file) => uploadOne(d, file)));
    await loadFiles();
    await refreshUsage();
  } catch (e) {
    failed(e);
  }
}

async function uploadOne(d, file) {
  const bar = el("progress", { max: 1, value: 0, "data-testid": "upload-progress" });
  const label = el("span", {}, `${file.name} · ${bytes(file.size)}`);
  const row = el("div", { class: "upload-row" }, label, bar);
  $("uploads").append(row);
  try {
    // Resumable: given the same file again after a cut, it goes on from where the server is.
    const path = await tusUpload(file, d.id, (f) => { bar.value = f; });
    label.textContent = `${file.name} · ${bytes(file.size)} · uploaded`;
    row.classList.add("done");
    if (!$("task-editor").value.trim() || $("task-editor").value === state.template) {
      useInput(path, file.name, file.type);
    }
  } catch (e) {
    label.textContent = `${file.name}: ${e.message}`;
    row.classList.add("failed");
    throw e;
  } finally {
    setTimeout(() => row.remove(), 4000);
  }
}

function setupDropZone() {
  const zone = $("upload");
  const input = $("upload-input");
  input.addEventListener("change", () => {
    uploadAll(input.files).finally(() => { input.value = ""; });
  });
  for (const name of ["dragenter", "dragover"]) {
    zone.addEventListener(name, (e) => {
      e.preventDefault();
      zone.classList.add("over");
    });
  }
  for (const name of ["dragleave", "drop"]) {
    zone.addEventListener(name, () => zone.classList.remove("over"));
  }
  zone.addEventListener("drop", (e) => {
    e.preventDefault();
    uploadAll(e.dataTransfer.files);
  });
}

// ---- the task editor and its dry run -------------------------------------------------------

/** A starting task for one input, by its kind; the user edits from there. */
function templateFor(path, name, type) {
  const stem = name.replace(/\.[^.]*$/, "") || "output";
  const kind = mediaKind(name, type);
  if (kind === "audio") {
    return { file: `${stem}-small.mp3`, options: ["-c:a", "libmp3lame", "-b:a", "96k"] };
  }
  if (kind === "image") return { file: `${stem}-small.png`, options: ["-vf", "scale=320:-2"] };
  return {
    file: `${stem}-small.mp4`,
    options: ["-vf", "scale=320:-2", "-c:v", "libx264", "-preset", "veryfast", "-crf", "28", "-c:a", "aac"],
  };
}

function useInput(path, name, type) {
  const editor = $("task-editor");
  let task = null;
  if (editor.value.trim() && editor.value !== state.template) {
    try {
      task = JSON.parse(editor.value);
    } catch {
      say("The task is not valid JSON: fix it before adding an input", "error");
      return;
    }
  }
  if (task && Array.isArray(task.inputs)) {
    task.inputs.push({ file_path: path });
    setTask(task, false);
  } else {
    setTask({ inputs: [{ file_path: path }], outputs: [templateFor(path, name, type)] }, true);
  }
}

function setTask(task, isTemplate) {
  const text = JSON.stringify(task, null, 2);
  $("task-editor").value = text;
  state.template = isTemplate ? text : null;
  scheduleDryRun();
}

let dryRunTimer = null;
function scheduleDryRun() {
  clearTimeout(dryRunTimer);
  dryRunTimer = setTimeout(dryRun, DRY_RUN_DELAY_MS);
}

/** The editor's task, or null after saying why it is not one. */
function editorTask(out) {
  const explain = (...nodes) => out && fill(out, ...nodes);
  const text = $("task-editor").value;
  if (!text.trim()) {
    explain(el("p", { class: "muted" }, "Write a task, or press “Use” on a file."));
    return null;
  }
  try {
    const task = JSON.parse(text);
    if (task && typeof task === "object" && !Array.isArray(task)) return task;
    explain(el("p", { class: "error" }, "The task must be a JSON object"));
  } catch (e) {
    explain(el("p", { class: "error", "data-testid": "dry-run-json" }, `Not JSON yet: ${e.message}`));
  }
  return null;
}

async function dryRun() {
  const out = $("dry-run");
  const seq = ++state.dryRunSeq;
  const task = editorTask(out);
  if (!task) return;
  out.classList.add("pending");
  try {
    const answer = await api("POST", "/ffmpeg/validate", { task });
    if (seq === state.dryRunSeq) fill(out, dryRunOk(answer));
  } catch (e) {
    if (seq !== state.dryRunSeq) return;
    if (e.status === 401) failed(e);
    fill(out, dryRunRefused(task, e));
  } finally {
    if (seq === state.dryRunSeq) {
      out.classList.remove("pending");
      out.dataset.answered = String(seq); // which edit the shown answer is for
    }
  }
}

/** Where a task's outputs land: its output_dir_id, else its first stored input's directory. */
function outputDirOf(task) {
  if (task.output_dir_id) return task.output_dir_id;
  const stored = (task.inputs ?? []).map((i) => i.file_path ?? "").find((p) => p && !/^https?:/i.test(p));
  return stored ? stored.split("/")[0] : null;
}

async function runNow() {
  const task = editorTask($("dry-run"));
  if (!task) return;
  const status = $("run-status");
  $("run").disabled = true;
  status.textContent = "running…";
  status.className = "muted";
  const started = performance.now();
  try {
    const answer = await api("POST", "/ffmpeg/process", { task });
    status.textContent = `done in ${((performance.now() - started) / 1000).toFixed(1)} s · ${answer.result.length} output(s) · ${answer.usage.gb_sec.toPrecision(3)} GB·s`;
    status.className = "ok";
    showOutputs(answer.result, outputDirOf(task));
    await Promise.all([loadDirs(), refreshUsage()]);
  } catch (e) {
    status.textContent = e.message;
    status.className = "error";
    if (e.details) status.title = e.details;
  } finally {
    $("run").disabled = false;
  }
}

async function runAsJob() {
  const task = editorTask($("dry-run"));
  if (!task) return;
  const status = $("run-status");
  try {
    const accepted = await api("POST", "/ffmpeg/process/async", { task });
    status.textContent = `job ${accepted.job_id} ${accepted.status}`;
    status.className = "ok";
    showNewJob(accepted);
    await loadJobs();
  } catch (e) {
    status.textContent = e.message;
    status.className = "error";
  }
}

// ---- plain language ------------------------------------------------------------------------

/**
 * Translates with POST /ai/ffmpeg/validate: the derived task, the command it would run and its
 * estimate are shown (and the task put in the editor with its dry run), and nothing runs until
 * "Run it as a job" is pressed, which submits exactly the task shown.
 */
async function translate() {
  const out = $("nl-result");
  const instructions = $("nl-input").value.trim();
  if (!instructions) {
    fill(out, el("p", { class: "error" }, "Write what you want done"));
    return;
  }
  let task = null;
  try {
    task = $("task-editor").value.trim() ? JSON.parse($("task-editor").value) : null;
  } catch {
    // the inputs are taken from the editor only when it holds a task
  }
  const inputs = (task?.inputs ?? []).filter((i) => i.file_path).map((i) => ({ file_path: i.file_path }));
  if (!inputs.length) {
    fill(out, el("p", { class: "error" }, "Choose an input first: press “Use” on a file"));
    return;
  }
  $("nl-translate").disabled = true;
  $("run-status").textContent = "";
  fill(out, el("p", { class: "muted" }, "translating…"));
  try {
    const body = { inputs, instructions };
    if (task?.output_dir_id) body.output_dir_id = task.output_dir_id;
    const checked = await api("POST", "/ai/ffmpeg/validate", body);
    const generated = checked.generated_command;
    const recipe = generated.recipe;
    const e = checked.estimate;
    const confirm = el("button", { type: "button", "data-testid": "nl-confirm" }, "Run it as a job");
    confirm.addEventListener("click", async () => {
      confirm.disabled = true;
      try {
        // Exactly what was shown: the task, or the recipe call over the same inputs.
        const accepted = recipe
          ? await api("POST", `/recipes/${enc(recipe.name)}/async`, {
              inputs: recipe.inputs, params: recipe.params, output_dir_id: recipe.output_dir_id })
          : await api("POST", "/ffmpeg/process/async", { task: generated });
        showNewJob(accepted);
        confirm.textContent = `job ${accepted.job_id} ${accepted.status}`;
        await loadJobs();
      } catch (err) {
        confirm.disabled = false;
        out.append(el("p", { class: "error", "data-testid": "nl-error" }, err.message));
      }
    });
    const commands = recipe
      ? checked.steps.map((s) => s.command ? s.command.join(" ") : `${s.kind} ${s.file ?? ""}`).join("\n")
      : checked.command.join(" ");
    fill(out,
      el("p", { class: "ok" }, recipe ? `The recipe “${recipe.name}” (not run yet):` : "Generated task (not run yet):"),
      el("pre", { class: "generated", "data-testid": "nl-generated" }, JSON.stringify(generated, null, 2)),
      el("pre", { class: "generated", "data-testid": "nl-command" }, commands),
      el("p", { class: "muted", "data-testid": "nl-estimate" },
        `about ${e.time_sec.toFixed(1)} s, ${e.gb_sec.toFixed(4)} GB·s (${e.confidence} confidence)`
        + (recipe ? " for its first steps" : "")
        + (checked.quota.fits ? "" : "; over this month's quota")),
      el("div", { class: "row" }, confirm),
    );
    if (!recipe) setTask(generated, false);
  } catch (e) {
    fill(out, el("p", { class: "error", "data-testid": "nl-error" }, e.message));
  } finally {
    $("nl-translate").disabled = false;
  }
}

// ---- jobs ----------------------------------------------------------------------------------

/** A job this page submitted: its row at the top of the list at once, streamed live. */
function showNewJob(accepted) {
  state.mine.add(accepted.job_id);
  const list = $("jobs");
  list.querySelector("li.muted")?.remove();
  list.prepend(jobRow(accepted.job_id, accepted.status, new Date().toISOString()));
  follow(accepted.job_id);
}

async function loadJobs() {
  clearTimeout(state.jobPoll);
  try {
    const { jobs } = await api("GET", "/jobs?limit=20");
    const list = $("jobs");
    const rows = jobs.map((j) => jobRow(j.id, j.status, j.created_at));
    fill(list, ...rows);
    if (!jobs.length) list.append(el("li", { class: "muted" }, "No jobs yet."));
    const open = jobs.filter((j) => !TERMINAL.has(j.status));
    // This page's jobs first, then the newest.
    open.sort((a, b) => state.mine.has(b.id) - state.mine.has(a.id));
    for (const j of open) follow(j.id);
    if (open.some((j) => !state.jobs.get(j.id)?.controller)) {
      state.jobPoll = setTimeout(loadJobs, POLL_MS);
    }
  } catch (e) {
    failed(e);
  }
}

function streaming() {
  let n = 0;
  for (const job of state.jobs.values()) if (job.controller) n += 1;
  return n;
}

/** The row of a job (kept across refreshes so a stream in progress keeps updating it). */
function jobRow(id, status, createdAt) {
  let job = state.jobs.get(id);
  if (!job) {
    const bar = el("progress", { max: 100, value: 0 });
    const statusEl = el("span", { class: "status", "data-testid": "job-status" });
    const pct = el("span", { class: "pct", "data-testid": "job-percent" });
    const cancel = el("button", { type: "button", class: "small", hidden: true }, "Cancel");
    const show = el("button", { type: "button", class: "small", hidden: true }, "Show");
    const note = el("div", { class: "muted note" });
    const row = el("li", { "data-job": id },
      el("div", { class: "job-head" }, el("code", {}, id), statusEl, pct),
      bar, note, el("div", { class: "actions" }, show, cancel));
    cancel.addEventListener("click", async () => {
      try {
        await api("DELETE", `/job/${enc(id)}`);
      } catch (e) {
        failed(e);
      }
      await loadJobs();
    });
    show.addEventListener("click", () => showJob(id));
    job = { row, bar, statusEl, pct, cancel, show, note, controller: null };
    state.jobs.set(id, job);
  }
  if (createdAt) job.note.textContent = `created ${new Date(createdAt).toLocaleString()}`;
  updateJob(id, { status });
  return job.row;
}

function updateJob(id, view) {
  const job = state.jobs.get(id);
  if (!job) return;
  const status = view.status;
  job.row.dataset.status = status;
  job.statusEl.textContent = status;
  job.statusEl.className = `status ${status}`;
  let percent = view.progress?.percent;
  if (status === "completed") percent = 100;
  if (percent !== undefined && percent !== null) {
    job.bar.value = percent;
    job.pct.textContent = `${Math.round(percent)} %`;
  } else if (view.progress) {
    job.bar.removeAttribute("value"); // duration unknown: an indeterminate bar
    job.pct.textContent = `${view.progress.processed_sec.toFixed(1)} s`;
  } else if (status === "pending") {
    job.bar.value = 0;
  }
  job.cancel.hidden = status !== "pending";
  job.show.hidden = status !== "completed" && status !== "failed";
  if (view.error) job.note.textContent = view.error;
}

async function follow(id) {
  const job = state.jobs.get(id);
  if (!job || job.controller) return;
  if (streaming() >= MAX_STREAMS) {
    // The page's own new job takes the place of a stream of another's (polled instead).
    const other = state.mine.has(id)
      && [...state.jobs.values()].find((j) => j.controller && !state.mine.has(j.row.dataset.job));
    if (!other) return;
    other.controller.abort();
    other.controller = null;
    clearTimeout(state.jobPoll);
    state.jobPoll = setTimeout(loadJobs, POLL_MS);
  }
  job.controller = new AbortController();
  try {
    await followJob(id, (name, view) => {
      updateJob(id, view);
      if (name === "end") finished(view);
    }, job.controller.signal);
  } catch (e) {
    if (e.name !== "AbortError") job.note.textContent = e.message;
  } finally {
    job.controller = null;
  }
}

async function finished(view) {
  if (!state.mine.has(view.job_id)) return;
  const status = $("run-status");
  if (status.textContent.includes(view.job_id)) status.textContent = `job ${view.job_id} ${view.status}`;
  state.mine.delete(view.job_id);
  if (view.status === "completed") {
    showResult(view);
    await Promise.all([loadDirs(), refreshUsage()]);
  } else if (view.error) {
    say(`Job ${view.job_id}: ${view.error}`, "error");
  }
}

async function showJob(id) {
  try {
    const view = await api("GET", `/job/${enc(id)}`);
    if (view.status === "completed") {
      showResult(view);
    } else {
      fill($("preview"),
        el("p", { class: "error" }, view.error ?? view.status),
        view.details ? el("pre", { class: "details" }, view.details) : null,
      );
    }
  } catch (e) {
    failed(e);
  }
}

// ---- preview and probe ---------------------------------------------------------------------

/** Outputs of a run: a list to pick from, and the first previewable one shown. */
/** A finished job's outputs; a streaming recipe's playback above them, playing in the page. */
function showResult(view) {
  showOutputs(view.result ?? [], outputDirOf(view.recipe ?? view.generated_command ?? view.task));
  if (view.playback_url) $("preview").prepend(player(view.playback_url));
}

function showOutputs(outputs, dirId) {
  const preview = $("preview");
  if (!outputs.length) {
    fill(preview, el("p", { class: "muted" }, "The run made no output."));
    return;
  }
  const show = (o) => showMedia(o.file_name, o.download_url, null, dirId ? `${dirId}/${o.file_name}` : null, outputs, dirId);
  show(outputs.find((o) => mediaKind(o.file_name)) ?? outputs[0]);
}

async function previewFile(dirId, name) {
  try {
    const { download } = await api("GET", `/file/download/${enc(dirId)}/${enc(name)}`);
    showMedia(name, download.url, download.file_type, download.file_path, null, dirId);
  } catch (e) {
    failed(e);
  }
}

function showMedia(name, url, type, filePath, outputs, dirId) {
  const kind = mediaKind(name, type);
  const others = (outputs ?? []).length > 1
    ? el("div", { class: "chips" }, outputs.map((o) =>
        el("button", {
          type: "button", class: o.file_name === name ? "small selected" : "small",
          onclick: () => showMedia(o.file_name, o.download_url, null, dirId ? `${dirId}/${o.file_name}` : null, outputs, dirId),
        }, o.file_name)))
    : null;
  fill($("preview"),
    others,
    el("div", { class: "preview-head" },
      el("strong", { "data-testid": "preview-name" }, name),
      el("a", { href: url, download: name, class: "button small" }, "Download"),
      filePath ? el("button", { type: "button", class: "small", onclick: () => probe(filePath) }, "Probe") : null),
    el("div", { class: "media" }, mediaElement(kind, url, name)),
  );
  fill($("probe"));
}

async function probe(filePath) {
  const out = $("probe");
  fill(out, el("p", { class: "muted" }, "probing…"));
  try {
    const answer = await api("POST", "/ffprobe/analyze", {
      file_path: filePath,
      probe: {
        format: ["format_name", "duration", "size", "bit_rate"],
        streams: ["index", "codec_type", "codec_name", "width", "height", "pix_fmt", "r_frame_rate", "sample_rate", "channels", "duration"],
      },
    });
    fill(out, answer.error ? el("p", { class: "error" }, answer.error) : null, probeTables(answer.result));
    await refreshUsage();
  } catch (e) {
    fill(out, el("p", { class: "error" }, e.message));
  }
}

// ---- recipes -------------------------------------------------------------------------------

/** The task's inputs, as a recipe takes them. */
function taskInputs() {
  const task = editorTask(null);
  return (task?.inputs ?? []).map((i) => i.file_path).filter(Boolean);
}

const loadRecipes = setupRecipes({
  inputs: taskInputs,
  showOutputs,
  after: () => Promise.all([loadDirs(), refreshUsage()]),
});

// ---- start ---------------------------------------------------------------------------------

function tickTtls() {
  for (const span of document.querySelectorAll(".ttl[data-added]")) {
    span.textContent = timeLeft(span.dataset.added, Number(span.dataset.ttl));
  }
}

function start() {
  $("connect").addEventListener("click", () => connect($("api-key").value.trim()));
  $("api-key").addEventListener("keydown", (e) => {
    if (e.key === "Enter") connect($("api-key").value.trim());
  });
  $("disconnect").addEventListener("click", disconnect);
  $("new-directory").addEventListener("click", newDirectory);
  $("task-editor").addEventListener("input", () => {
    state.template = null;
    scheduleDryRun();
  });
  $("run").addEventListener("click", runNow);
  $("run-async").addEventListener("click", runAsJob);
  $("nl-translate").addEventListener("click", translate);
  $("refresh-jobs").addEventListener("click", loadJobs);
  setupDropZone();
  setInterval(tickTtls, 1000);
  editorTask($("dry-run"));
  const key = savedKey();
  if (key) connect(key);
}

start();
