// The API as the console uses it: the same routes, auth and answers as any client. The key lives
// in sessionStorage (gone when the tab closes) and only ever travels in the Authorization header.

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

/**
 * PUTs a file to a presigned upload (`upload.url`, `upload.method`, `upload.headers` of
 * POST /file). XMLHttpRequest, not fetch: only it reports upload progress.
 */
export function putFile(upload, file, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(upload.method || "PUT", upload.url);
    for (const [name, value] of Object.entries(upload.headers ?? {})) {
      xhr.setRequestHeader(name, value);
    }
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(1);
        resolve();
        return;
      }
      let message = `Upload failed: HTTP ${xhr.status}`;
      try {
        message = JSON.parse(xhr.responseText).error ?? message;
      } catch {
        // S3 answers XML: keep the status.
      }
      reject(new ApiError(xhr.status, message));
    };
    xhr.onerror = () => reject(new ApiError(0, "Upload failed: the store cannot be reached"));
    xhr.send(file);
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
