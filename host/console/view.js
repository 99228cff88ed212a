// Rendering helpers: elements built from data (never from HTML strings), and the formats the
// console shows (sizes, time left, argv, media kinds, probe tables, dry runs).

/** An element: `attrs` sets attributes (`class`, `data-*`, ...) and `on*` listeners. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      node.addEventListener(name.slice(2), value);
    } else if (value === true) {
      node.setAttribute(name, "");
    } else {
      node.setAttribute(name, String(value));
    }
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Replaces a node's children, skipping the absent ones (null, undefined, false). */
export function fill(node, ...children) {
  node.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}

export function bytes(n) {
  if (!Number.isFinite(n)) return "";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i += 1;
  }
  return `${i === 0 ? n : n.toFixed(n < 10 ? 1 : 0)} ${units[i]}`;
}

/** "3 h 12 min left" for a directory created at `addedOn` (RFC 3339) with `ttl` seconds. */
export function timeLeft(addedOn, ttl, now = Date.now()) {
  const left = Math.floor((Date.parse(addedOn) + ttl * 1000 - now) / 1000);
  if (!Number.isFinite(left)) return "";
  if (left <= 0) return "expired";
  const d = Math.floor(left / 86400);
  const h = Math.floor((left % 86400) / 3600);
  const m = Math.floor((left % 3600) / 60);
  const s = left % 60;
  if (d > 0) return `${d} d ${h} h left`;
  if (h > 0) return `${h} h ${m} min left`;
  if (m > 0) return `${m} min ${s} s left`;
  return `${s} s left`;
}

/** The argv as one shell line, quoted where a shell would need it. */
export function shellLine(argv) {
  return argv
    .map((a) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`))
    .join(" ");
}

const KINDS = {
  video: ["mp4", "m4v", "mov", "webm", "mkv", "ogv"],
  audio: ["mp3", "m4a", "aac", "wav", "ogg", "oga", "opus", "flac"],
  image: ["png", "jpg", "jpeg", "gif", "webp", "bmp", "avif", "svg"],
};

/** `video`, `audio`, `image` or null, from a content type first, else the name's extension. */
export function mediaKind(name, contentType) {
  const major = (contentType ?? "").split("/")[0];
  if (["video", "audio", "image"].includes(major)) return major;
  const ext = (name.split(".").pop() ?? "").toLowerCase();
  for (const [kind, exts] of Object.entries(KINDS)) {
    if (exts.includes(ext)) return kind;
  }
  return null;
}

/** The media element for a presigned download URL. */
export function mediaElement(kind, url, name) {
  if (kind === "video") return el("video", { src: url, controls: true, preload: "auto", muted: true });
  if (kind === "audio") return el("audio", { src: url, controls: true, preload: "auto" });
  if (kind === "image") return el("img", { src: url, alt: name });
  return el("p", { class: "muted" }, "No preview for this type; download it instead.");
}

/** ffprobe's answer as tables: the format's fields, then one row per stream. */
export function probeTables(result) {
  const out = [];
  const format = result?.format;
  if (format && Object.keys(format).length) {
    out.push(
      el("table", { class: "kv", "data-testid": "probe-format" },
        el("caption", {}, "Format"),
        el("tbody", {}, Object.entries(format).map(([k, v]) => el("tr", {}, el("th", {}, k), el("td", {}, show(v))))),
      ),
    );
  }
  const streams = result?.streams ?? [];
  if (streams.length) {
    const cols = [...new Set(streams.flatMap((s) => Object.keys(s)))];
    out.push(
      el("table", { class: "grid", "data-testid": "probe-streams" },
        el("caption", {}, "Streams"),
        el("thead", {}, el("tr", {}, cols.map((c) => el("th", {}, c)))),
        el("tbody", {}, streams.map((s) => el("tr", {}, cols.map((c) => el("td", {}, show(s[c])))))),
      ),
    );
  }
  return out;
}

function show(v) {
  if (v === undefined || v === null) return "";
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

/** The first quoted name in a refusal ("Option '-filter_script:v' is not allowed: ..."). */
export function refusedSubject(message) {
  return /'([^']+)'/.exec(message ?? "")?.[1] ?? null;
}

/**
 * The task's options and filter graphs as chips, the ones a refusal names marked: what the
 * policy concerns is visible beside the editor, without parsing positions out of the JSON text.
 */
export function taskChips(task, subject) {
  const parts = [];
  const chip = (text) => {
    const hit = subject && (text === subject || text.includes(subject) || subject.includes(text) && text.length > 1);
    return el("code", { class: hit ? "chip refused" : "chip", "data-refused": hit ? "true" : null }, text);
  };
  const row = (label, items) => {
    if (items.length) parts.push(el("div", { class: "chips" }, el("span", { class: "muted" }, label), items.map(chip)));
  };
  (task.inputs ?? []).forEach((input, i) => row(`inputs[${i}]`, [...(input.options ?? []), input.file_path ?? ""].filter(Boolean)));
  if (task.filter_complex) row("filter_complex", [String(task.filter_complex)]);
  (task.outputs ?? []).forEach((output, i) => row(`outputs[${i}]`, [...(output.options ?? []), ...(output.maps ?? []).map((m) => `-map ${m}`), output.file ?? ""].filter(Boolean).map(String)));
  return parts;
}

/** The dry run's answer: the argv that would run and each policy decision. */
export function dryRunOk(answer) {
  const rows = (answer.decisions ?? []).map((d) =>
    el("tr", { class: d.allowed ? "allowed" : "refused" },
      el("td", {}, d.allowed ? "✓" : "✗"),
      el("td", {}, el("code", {}, d.subject)),
      el("td", {}, d.reason),
    ),
  );
  return [
    el("p", { class: "verdict ok", "data-testid": "dry-run-verdict" }, "Allowed: this is what would run"),
    el("pre", { class: "argv", "data-testid": "dry-run-argv" }, shellLine(answer.command ?? [])),
    answer.output_dir_id ? el("p", { class: "muted" }, `Outputs go to directory ${answer.output_dir_id}`) : null,
    rows.length
      ? el("table", { class: "decisions", "data-testid": "dry-run-decisions" },
          el("thead", {}, el("tr", {}, el("th", {}, ""), el("th", {}, "subject"), el("th", {}, "policy"))),
          el("tbody", {}, rows))
      : null,
  ];
}

/** A refused task: the API's message, and the task's options with the one it names marked. */
export function dryRunRefused(task, error) {
  const subject = refusedSubject(error.message);
  return [
    el("p", { class: "verdict refused", "data-testid": "dry-run-verdict" }, "Refused"),
    el("p", { class: "error", "data-testid": "dry-run-error" }, error.message),
    error.details ? el("pre", { class: "details" }, error.details) : null,
    task && typeof task === "object" ? el("div", { class: "task-chips" }, taskChips(task, subject)) : null,
  ];
}

const loading = new Map();

/** Loads `/console/<name>` once and resolves with the global it defines. */
export function script(name, global) {
  if (window[global]) return Promise.resolve(window[global]);
  if (!loading.has(name)) {
    loading.set(name, new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = `/console/${name}`;
      s.onload = () => (window[global] ? resolve(window[global]) : reject(new Error(`${name} did not load`)));
      s.onerror = () => {
        loading.delete(name);
        reject(new Error(`${name} did not load`));
      };
      document.head.append(s);
    }));
  }
  return loading.get(name);
}
