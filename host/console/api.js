// The API as the console uses it: the same routes, auth and answers as any client. The key lives
// in sessionStorage (gone when the tab closes) and only ever travels in the Authorization header.

import { script } from "/console/view.js";

const KEY = "mediaforge.apiKey";

export function savedKey() {
  return sessionStorage.getItem(KEY);
}

export function saveKey(key) {
  sessionStorage.setItem(KEY, key);
}

export function forgetKey() {
  sessionStorage.removeItem(KEY);
}

/** An API failure: the server's `error` (and `details`) with the HTTP status. */
export class ApiError extends Error {
  constructor(status, message, details) {
    super(message);
    this.status = status;
    this.details = details;
  }
}

function headers(key, json) {
  const h = { Authorization: `Basic ${key ?? savedKey() ?? ""}` };
  if (json) h["Content-Type"] = "application/json";
  return h;
}

/**
 * Calls an API route and returns its JSON body; a non-2xx answer (or `ok: false` with an error)
 * throws an ApiError with the server's own message. `key` overrides the saved key (to try one).
 */
export async function api(method, path, body, key) {
  let res;
  try {
    res = await fetch(path, {
      method,
      headers: headers(key, body !== undefined),
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
      credentials: "omit",
      referrerPolicy: "no-referrer",
    });
  } catch (e) {
    throw new ApiError(0, `The server cannot be reached (${e.message})`);
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    // Not JSON: reported below by status.
  }
  if (!res.ok) {
    throw new ApiError(res.status, data?.error ?? `HTTP ${res.status}`, data?.details);
  }
  return data;
}

/** Chunks of a resumable upload: what is resent at most when a connection drops. */
const CHUNK = 8 * 1024 * 1024;

/** The server's `error` in a failed tus request, else tus-js-client's own message. */
function tusError(err) {
  const res = err?.originalResponse;
  let message = err?.message ?? String(err);
  try {
    message = JSON.parse(res.getBody()).error ?? message;
  } catch {
    // No answer, or not JSON: keep the client's message.
  }
  return new ApiError(res?.getStatus?.() ?? 0, `Upload failed: ${message}`);
}

/**
 * Uploads `file` into directory `dirId` with the tus protocol (POST /tus, then PATCHes of 8 MiB,
 * README, "resumable uploads"): an upload cut off (a dropped connection, a closed tab) resumes from
 * the server's offset when the same file is given again, by the upload URL tus-js-client keeps
 * in localStorage under this file and directory. Resolves with the file's `dir_id/file_name`.
 */
export async function tusUpload(file, dirId, onProgress) {
  const tus = await script("tus.min.js", "tus");
  return new Promise((resolve, reject) => {
    const upload = new tus.Upload(file, {
      endpoint: "/tus",
      headers: { Authorization: headers().Authorization },
      metadata: { filename: file.name, dir_id: dirId },
      chunkSize: CHUNK,
      retryDelays: [0, 1000, 3000, 5000],
      removeFingerprintOnSuccess: true,
      fingerprint: (f) => Promise.resolve(["mediaforge", dirId, f.name, f.size, f.lastModified].join("/")),
      onProgress: (sent, total) => onProgress(total ? sent / total : 0),
      onSuccess: () => {
        onProgress(1);
        resolve(`${dirId}/${file.name}`);
      },
      onError: (err) => reject(tusError(err)),
    });
    upload
      .findPreviousUploads()
      .then((previous) => {
        if (previous.length) upload.resumeFromPreviousUpload(previous[0]);
        upload.start();
      })
      .catch((err) => reject(tusError(err)));
  });
}

/**
 * Follows GET /job/{id}/events. EventSource cannot send headers, so the stream is read with
 * fetch and parsed here: `onEvent(name, data)` for each event; resolves when the stream ends.
 */
export async function followJob(id, onEvent, signal) {
  const res = await fetch(`/job/${encodeURIComponent(id)}/events`, {
    headers: { ...headers(), Accept: "text/event-stream" },
    cache: "no-store",
    credentials: "omit",
    signal,
  });
  if (!res.ok) {
    let message = `HTTP ${res.status}`;
    try {
      message = (await res.json()).error ?? message;
    } catch {
      // keep the status
    }
    throw new ApiError(res.status, message);
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += value.replace(/\r\n?/g, "\n");
    let end;
    while ((end = buffered.indexOf("\n\n")) >= 0) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      dispatch(block, onEvent);
    }
  }
  if (buffered.trim()) dispatch(buffered, onEvent);
}

/** One server-sent event block: `event:` and `data:` lines (data lines joined by newlines). */
function dispatch(block, onEvent) {
  let name = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") name = value;
    else if (field === "data") data.push(value);
  }
  if (data.length === 0) return;
  let parsed;
  try {
    parsed = JSON.parse(data.join("\n"));
  } catch {
    return;
  }
  onEvent(name, parsed);
}
