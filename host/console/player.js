// In-page playback of a streaming recipe's `playback_url`: hls.js for HLS, dash.js for DASH
// (the pinned builds in vendor/, loaded only when something is played), or the browser's own
// HLS support where media source extensions are missing. Segments and renditions are fetched
// from the playback prefix on this origin, so the page's CSP needs only `media-src blob:` for
// the media source.

import { el, script } from "/console/view.js";

/** Plays `url` (a master playlist or an MPD) in `video`; resolves with a function that stops it. */
export async function play(video, url) {
  const path = new URL(url, location.href).pathname;
  if (path.endsWith(".mpd")) {
    const dashjs = await script("dash.mediaplayer.min.js", "dashjs");
    const player = dashjs.MediaPlayer().create();
    player.initialize(video, url, false);
    return () => player.reset();
  }
  const Hls = await script("hls.light.min.js", "Hls");
  if (Hls.isSupported()) {
    // No worker: it would be made from a blob: URL, which the page's CSP does not allow.
    const hls = new Hls({ enableWorker: false });
    hls.loadSource(url);
    hls.attachMedia(video);
    return () => hls.destroy();
  }
  if (video.canPlayType("application/vnd.apple.mpegurl")) {
    video.src = url;
    return () => video.removeAttribute("src");
  }
  throw new Error("this browser cannot play HLS");
}

/** A video element playing `url`, with a line under it for what went wrong. */
export function player(url) {
  const video = el("video", { controls: true, muted: true, playsinline: true, "data-testid": "player", class: "player" });
  const note = el("p", { class: "muted", "data-testid": "player-note" }, url);
  const box = el("div", { class: "player-box" }, video, note);
  play(video, url).catch((e) => {
    note.textContent = e.message;
    note.className = "error";
  });
  return box;
}
