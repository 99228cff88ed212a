"""The web console in headless Chromium, step by step, as a person would use it.

Run by tests/console/run.sh, which starts the server and makes the media. Each step is a check;
a screenshot of the page after each step is kept in --artifacts. Prints `N passed, M failed`.
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

ARGS = None
TERMINAL_STATES = ("completed", "failed", "cancelled")
DRIVER = None
RESULTS = []  # (name, ok, note)
SHOTS = 0


def kept_upload_url(key_filter):
    """The URL tus-js-client keeps in localStorage for resuming the upload whose key passes
    `key_filter` (a JavaScript expression of `k`), once it is there."""
    stored = wait_for("the upload kept for resuming", lambda: [
        json.loads(v) for v in DRIVER.execute_script(
            f"return Object.keys(localStorage).filter(k => {key_filter})"
            ".map(k => localStorage.getItem(k))")])
    return stored[0]["uploadUrl"]


def tus_offset(upload_url, key):
    """The server's (status, Upload-Offset) of a tus upload, by HEAD; no offset on an error."""
    head = {"Authorization": f"Basic {key}", "Tus-Resumable": "1.0.0"}
    req = urllib.request.Request(upload_url, method="HEAD", headers=head)
    try:
        with urllib.request.urlopen(req, timeout=10) as res:
            return res.status, int(res.headers["Upload-Offset"])
    except urllib.error.HTTPError as e:
        return e.code, None


def tid(name):
    return f'[data-testid="{name}"]'


def find(selector, root=None):
    return (root or DRIVER).find_element(By.CSS_SELECTOR, selector)


def find_all(selector, root=None):
    return (root or DRIVER).find_elements(By.CSS_SELECTOR, selector)


def wait_for(what, check, timeout=20.0, every=0.1):
    """Polls `check` until it returns something truthy; fails naming `what` after `timeout`."""
    deadline = time.monotonic() + timeout
    last_error = None
    while time.monotonic() < deadline:
        try:
            value = check()
            if value:
                return value
        except Exception as e:  # the element may not exist yet
            last_error = e
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}"
                         + (f" (last error: {last_error})" if last_error else ""))


def text(selector):
    return find(selector).text


def set_editor(task):
    """Replaces the task editor's text as typing would (an input event), so the dry run follows;
    returns the dry run's count of answers before it."""
    editor = find(tid("task-editor"))
    before = int(find(tid("dry-run")).get_attribute("data-answered") or 0)
    DRIVER.execute_script(
        "arguments[0].value = arguments[1];"
        "arguments[0].dispatchEvent(new Event('input', {bubbles: true}));",
        editor, json.dumps(task, indent=2))
    return before


def shot(name):
    global SHOTS
    SHOTS += 1
    path = os.path.join(ARGS.artifacts, f"{SHOTS:02d}-{name}.png")
    DRIVER.save_screenshot(path)
    return path


def step(name):
    """Runs the decorated function as a check now, recording its outcome and a screenshot."""
    def run(fn):
        started = time.monotonic()
        try:
            note = fn() or ""
            RESULTS.append((name, True, note))
            print(f"ok   {name} ({time.monotonic() - started:.1f} s) {note}", flush=True)
        except Exception as e:
            RESULTS.append((name, False, str(e)))
            print(f"FAIL {name}: {e}", flush=True)
            traceback.print_exc(limit=3)
        finally:
            try:
                shot(re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-"))
            except Exception:
                pass
        return fn
    return run


def http(method, path, headers=None):
    req = urllib.request.Request(ARGS.base + path, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as res:
            return res.status, dict(res.headers.items()), res.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers.items()), e.read()


def api_json(method, path, body=None):
    """The API with the test's key: (status, JSON answer)."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(ARGS.base + path, method=method, data=data, headers={
        "Authorization": f"Basic {ARGS.key}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            return res.status, json.loads(res.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def start_browser(profile):
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--mute-audio",
                 "--autoplay-policy=no-user-gesture-required", "--window-size=1500,1050",
                 f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    return webdriver.Chrome(service=service, options=options)


def main():
    global ARGS, DRIVER
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--media", required=True)
    parser.add_argument("--artifacts", required=True)
    parser.add_argument("--server-log", required=True)
    parser.add_argument("--hlsjs", required=True)
    parser.add_argument("--dashjs", required=True)
    parser.add_argument("--big-key", required=True)
    ARGS = parser.parse_args()
    key = ARGS.key
    profile = tempfile.mkdtemp(prefix="mediaforge-console-chromium.")
    ctx = {}
    try:
        DRIVER = start_browser(profile)
        DRIVER.set_script_timeout(30)

        @step("console is static, same-origin, and needs no key")
        def _():
            status, headers, body = http("GET", "/console")
            h = {k.lower(): v for k, v in headers.items()}
            assert status == 200, f"GET /console: {status}"
            assert h["content-type"].startswith("text/html"), h["content-type"]
            csp = h.get("content-security-policy", "")
            assert "default-src 'self'" in csp, csp
            assert f"media-src 'self' {ARGS.base}" in csp, csp
            assert "unsafe-inline" not in csp and "unsafe-eval" not in csp, csp
            assert h.get("x-content-type-options") == "nosniff"
            assert h.get("referrer-policy") == "no-referrer"
            assert b"<script>" not in body and b" style=" not in body, "inline script or style"
            status, headers, _ = http("GET", "/console/console.js",
                                      {"Origin": "https://elsewhere.example"})
            h = {k.lower(): v for k, v in headers.items()}
            assert status == 200 and h["content-type"].startswith("text/javascript")
            assert not any(k.startswith("access-control-") for k in h), f"CORS headers: {h}"
            status, _, body = http("GET", "/console/missing.js")
            assert status == 404 and json.loads(body)["ok"] is False
            return f"CSP: {csp}"

        @step("a wrong key shows the API's message")
        def _():
            DRIVER.get(ARGS.base + "/console")
            find(tid("api-key")).send_keys("mf_wrong_key")
            find(tid("connect")).click()
            wait_for("the error message",
                     lambda: "Invalid API key" in text(tid("message")))
            assert DRIVER.execute_script("return sessionStorage.length") == 0, "a wrong key kept"
            assert "mf_wrong_key" not in DRIVER.current_url

        @step("connect with a key: usage against the plan's quota")
        def _():
            box = find(tid("api-key"))
            box.clear()
            box.send_keys(key)
            find(tid("connect")).click()
            wait_for("connected", lambda: "Connected" in text(tid("message")))
            usage = wait_for("usage", lambda: text(tid("usage")))
            assert "of 10 GB" in usage and "plan free" in usage, usage
            stored = DRIVER.execute_script("return Object.values(sessionStorage)")
            assert stored == [key], "the key is kept in sessionStorage"
            assert key not in DRIVER.current_url and key not in DRIVER.page_source, "key shown"
            assert find(tid("api-key")).get_attribute("value") == "", "key left in the field"
            return usage.replace("\n", " | ")

        @step("create a directory: TTL shown as time left")
        def _():
            find(tid("new-directory")).click()
            entry = wait_for("a directory", lambda: find_all(f"{tid('directories')} li[data-dir]"))
            ctx["dir"] = entry[0].get_attribute("data-dir")
            left = entry[0].find_element(By.CSS_SELECTOR, ".ttl").text
            assert re.match(r"^(23 h 59 min|1 d 0 h) left$", left) or "h" in left, left
            return f"{ctx['dir']}: {left}"

        @step("upload by the drop zone's file input, with progress")
        def _():
            zone_input = find(f"{tid('upload')} input[type=file]")
            zone_input.send_keys(os.path.join(ARGS.media, "clip.mp4"))
            row = wait_for("clip.mp4 in the files",
                           lambda: find_all(f'{tid("files")} li[data-file="clip.mp4"]'))
            wait_for("its size", lambda: "KiB" in row[0].text)
            bars = find_all(tid("upload-progress"))
            assert not bars or all(b.get_attribute("value") == "1" for b in bars), "progress"
            editor = find(tid("task-editor")).get_attribute("value")
            assert f"{ctx['dir']}/clip.mp4" in editor, "the upload fills the task editor"
            status, _, _ = http("GET", f"/file/{ctx['dir']}/clip.mp4",
                                {"Authorization": f"Basic {key}"})
            assert status == 200
            return row[0].text.replace("\n", " | ")

        @step("a resumable upload cut by a reload goes on from the server's offset")
        def _():
            # 18 MB of noise (the plan takes 20), sent at 3 MB/s so the reload lands mid-way.
            path = os.path.join(ARGS.media, "resume.bin")
            data = os.urandom(18 * 1000 * 1000)
            with open(path, "wb") as f:
                f.write(data)
            DRIVER.execute_cdp_cmd("Network.enable", {})
            DRIVER.execute_cdp_cmd("Network.emulateNetworkConditions", {
                "offline": False, "latency": 0, "downloadThroughput": -1,
                "uploadThroughput": 3 * 1000 * 1000})
            find(f"{tid('upload')} input[type=file]").send_keys(path)
            def sent():
                rows = [r for r in find_all(".upload-row") if "resume.bin" in r.text]
                bar = rows and find(tid("upload-progress"), rows[0])
                return bar and float(bar.get_attribute("value") or 0)
            wait_for("half the upload sent", lambda: 0.55 < (sent() or 0) < 1, timeout=30)
            DRIVER.refresh()  # the page and its request go; the key stays for the tab
            DRIVER.execute_cdp_cmd("Network.emulateNetworkConditions", {
                "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
            upload_url = kept_upload_url("k.startsWith('tus::')")

            def offset():
                return tus_offset(upload_url, key)
            status, at = offset()
            assert status == 200 and 0 < at < len(data), f"after the cut: {status} {at}"
            # The same file into the same directory: it resumes, and the bytes are whole.
            wait_for("the directory again", lambda: find_all(
                f'{tid("directories")} li[data-dir="{ctx["dir"]}"] button'))[0].click()
            find(f"{tid('upload')} input[type=file]").send_keys(path)
            wait_for("resume.bin in the files",
                     lambda: "MiB" in find(f'{tid("files")} li[data-file="resume.bin"]').text,
                     timeout=60)
            status, end = offset()
            assert status == 404 or end == len(data), \
                f"the first upload was not the one finished: {status} {end}"
            status, _, got = http("GET", f"/file/download/{ctx['dir']}/resume.bin",
                                  {"Authorization": f"Basic {key}"})
            link = json.loads(got)
            with urllib.request.urlopen(link["download"]["url"], timeout=30) as res:
                assert res.read() == data, "the resumed file's bytes differ"
            assert not DRIVER.execute_script(
                "return Object.keys(localStorage).filter(k => k.startsWith('tus::')).length"), \
                "the finished upload is forgotten"
            os.remove(path)
            return f"cut at {at} of {len(data)} bytes, resumed, bytes equal"

        def dry_run_verdict(expected, before):
            """Waits for the dry run's answer to an edit made after `before` answers. An answer
            to the editor's earlier content may land after `before` too (a dry run already on
            its way: CI of 2026-12-01 read "Allowed" so), so the verdict is awaited, and the
            last one seen is named if it never comes."""
            panel = find(tid("dry-run"))
            wait_for("the dry run's answer", lambda: int(
                panel.get_attribute("data-answered") or 0) > before)
            seen = []

            def answered():
                seen.append(text(tid("dry-run-verdict")))
                return seen[-1].startswith(expected)
            try:
                wait_for(f"the dry run's verdict {expected}", answered, timeout=10)
            except AssertionError:
                raise AssertionError(f"dry run: {seen[-1] if seen else '-'}, not {expected}")

        @step("the dry run refuses -filter_script:v and names the option")
        def _():
            before = set_editor({"inputs": [{"file_path": f"{ctx['dir']}/clip.mp4"}],
                                 "outputs": [{"file": "x.mp4", "options": [
                                     "-filter_script:v", "/etc/hostname"]}]})
            dry_run_verdict("Refused", before)
            error = text(tid("dry-run-error"))
            assert "-filter_script:v" in error, error
            marked = [c.text for c in find_all(f'{tid("dry-run")} .chip[data-refused]')]
            assert marked == ["-filter_script:v"], marked
            return error

        @step("the dry run refuses movie=/etc/passwd")
        def _():
            before = set_editor({"inputs": [{"file_path": f"{ctx['dir']}/clip.mp4"}],
                                 "outputs": [{"file": "x.mp4", "options": [
                                     "-vf", "movie=/etc/passwd[m];[in][m]overlay"]}]})
            dry_run_verdict("Refused", before)
            error = text(tid("dry-run-error"))
            assert "movie" in error, error
            marked = [c.text for c in find_all(f'{tid("dry-run")} .chip[data-refused]')]
            assert any("movie=" in m for m in marked), marked
            return error

        @step("the dry run accepts a valid task: argv with tenant paths, decisions")
        def _():
            ctx["task"] = {"inputs": [{"file_path": f"{ctx['dir']}/clip.mp4"}],
                           "outputs": [{"file": "small.mp4",
                                        "options": ["-vf", "scale=160:-2", "-c:v", "libx264",
                                                    "-preset", "veryfast", "-c:a", "aac"]}]}
            before = set_editor(ctx["task"])
            dry_run_verdict("Allowed", before)
            argv = text(tid("dry-run-argv"))
            assert argv.startswith("ffmpeg") and f"{ctx['dir']}/clip.mp4" in argv, argv
            assert "small.mp4" in argv and "scale=160:-2" in argv, argv
            rows = find_all(f'{tid("dry-run-decisions")} tbody tr')
            assert rows and all("allowed" in r.get_attribute("class") for r in rows)
            return argv

        @step("the dry run follows typing (debounced)")
        def _():
            editor = find(tid("task-editor"))
            editor.send_keys("x")  # now it is not JSON
            wait_for("the JSON message", lambda: "Not JSON yet" in text(tid("dry-run")))
            before = set_editor(ctx["task"])
            dry_run_verdict("Allowed", before)

        @step("run: the output plays in the preview")
        def _():
            find(tid("run")).click()
            wait_for("the run", lambda: "done in" in text(tid("run-status")), timeout=60)
            video = wait_for("a video", lambda: find_all(f"{tid('preview')} video"))[0]
            state = wait_for("the video's data",
                             lambda: (DRIVER.execute_script(
                                 "return arguments[0].readyState", video) >= 2) and
                             DRIVER.execute_script(
                                 "return [arguments[0].readyState, arguments[0].videoWidth,"
                                 " arguments[0].duration]", video),
                             timeout=20)
            assert state[1] == 160, f"video width {state[1]}"
            wait_for("small.mp4 among the files",
                     lambda: find_all(f'{tid("files")} li[data-file="small.mp4"]'))
            return f"readyState, width, duration = {state}; {text(tid('run-status'))}"

        @step("probe the output: a table")
        def _():
            probe = next(b for b in find_all(f"{tid('preview')} button") if b.text == "Probe")
            probe.click()
            table = wait_for("the streams table", lambda: find_all(tid("probe-streams")))[0]
            assert "h264" in table.text and "160" in table.text, table.text
            assert "duration" in text(tid("probe-format")), "the format table"
            return table.text.replace("\n", " | ")[:160]

        @step("plain language: the task, its command and estimate shown; it runs on confirm")
        def _():
            set_editor({"inputs": [{"file_path": f"{ctx['dir']}/clip.mp4"}],
                        "outputs": [{"file": "unused.mp4"}]})
            find(tid("nl-input")).send_keys("make a gif of the first second")
            status, before = api_json("GET", "/jobs")
            find(tid("nl-translate")).click()
            generated = wait_for("the generated task", lambda: text(tid("nl-generated")),
                                 timeout=30)
            assert text(tid("nl-command")).startswith("ffmpeg "), text(tid("nl-command"))
            assert "GB·s" in text(tid("nl-estimate")), text(tid("nl-estimate"))
            time.sleep(1)
            status, after = api_json("GET", "/jobs")
            assert after["pagination"]["total"] == before["pagination"]["total"], \
                "a job was submitted before the confirmation"
            find(tid("nl-confirm")).click()
            task = json.loads(generated)
            outputs = [o["file"] for o in task["outputs"]]
            assert any(o.endswith(".gif") for o in outputs), outputs
            assert task["inputs"][0]["file_path"] == f"{ctx['dir']}/clip.mp4", task
            editor = json.loads(find(tid("task-editor")).get_attribute("value"))
            assert editor == task, "the generated task is in the editor"
            wait_for("the dry run of the generated task", lambda: outputs[0] in text(
                tid("dry-run-argv")))
            img = wait_for("the gif in the preview",
                           lambda: find_all(f"{tid('preview')} img"), timeout=60)[0]
            loaded = wait_for("the gif loaded", lambda: DRIVER.execute_script(
                "return arguments[0].complete && arguments[0].naturalWidth", img))
            return f"outputs {outputs}, options {task['outputs'][0].get('options')}; gif width {loaded}"

        @step("a recipe from its form: thumbnails of the task's input, previewed, data shown")
        def _():
            set_editor({"inputs": [{"file_path": f"{ctx['dir']}/clip.mp4"}],
                        "outputs": [{"file": "unused.mp4"}]})
            select = find(tid("recipe-select"))
            names = [o.get_attribute("value") for o in select.find_elements(By.TAG_NAME, "option")]
            assert "hls" in names and "thumbnails" in names, names
            Select(select).select_by_value("thumbnails")
            count = wait_for("the count field", lambda: find("#recipe-param-count"))
            assert count.get_attribute("type") == "number" and count.get_attribute("max") == "30"
            count.clear()
            count.send_keys("2")
            width = find("#recipe-param-width")
            width.clear()
            width.send_keys("96")
            find(tid("recipe-run")).click()
            wait_for("the recipe", lambda: "done in" in text(tid("recipe-status")), timeout=60)
            assert "2 file(s)" in text(tid("recipe-status")), text(tid("recipe-status"))
            img = wait_for("a thumbnail in the preview",
                           lambda: find_all(f"{tid('preview')} img"), timeout=30)[0]
            width = wait_for("the thumbnail loaded", lambda: DRIVER.execute_script(
                "return arguments[0].complete && arguments[0].naturalWidth", img))
            assert width == 96, width
            data = json.loads(find(f"{tid('recipe-data')} pre").text)
            assert [t["file"] for t in data["thumbnails"]] == ["thumb_01.jpg", "thumb_02.jpg"], data
            # A refused parameter shows the API's message, naming it.
            count.clear()
            count.send_keys("99")
            find(tid("recipe-run")).click()
            wait_for("the refusal", lambda: "count" in text(tid("recipe-status"))
                     and "error" in find(tid("recipe-status")).get_attribute("class"), timeout=20)
            return f"{text(tid('recipe-status'))}; thumbnail width {width}"

        @step("a job: live progress over the event stream to 100 % / completed")
        def _():
            find(f"{tid('upload')} input[type=file]").send_keys(
                os.path.join(ARGS.media, "long.mp4"))
            wait_for("long.mp4 uploaded",
                     lambda: "MiB" in find(f'{tid("files")} li[data-file="long.mp4"]').text
                     or "KiB" in find(f'{tid("files")} li[data-file="long.mp4"]').text)
            # From here every request of the page (the dry run, the submission, the new job's
            # stream) must get through while the other jobs run.
            edited = time.monotonic()
            before = set_editor({"inputs": [{"file_path": f"{ctx['dir']}/long.mp4"}],
                                 "outputs": [{"file": "long-small.mp4", "options": [
                                     "-c:v", "libx264", "-preset", "medium", "-crf", "23"]}]})
            dry_run_verdict("Allowed", before)
            find(tid("run-async")).click()
            job_id = wait_for("the job's id", lambda: re.search(
                r"job (\S+) (pending|processing|completed)", text(tid("run-status"))))[1]
            row = f'{tid("jobs")} li[data-job="{job_id}"]'
            wait_for("the job in the list", lambda: find_all(row))
            seen = []
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline:
                status = find(f"{row} {tid('job-status')}").text.lower()
                pct = find(f"{row} {tid('job-percent')}").text
                if (status, pct) not in seen:
                    seen.append((status, pct))
                    if status == "processing" and pct and "%" in pct and len(seen) < 6:
                        shot("job-in-progress")
                if status in ("completed", "failed", "cancelled"):
                    break
                time.sleep(0.1)
            assert seen[-1] == ("completed", "100 %"), seen
            assert any(s == "processing" for s, _ in seen), f"never seen processing: {seen}"
            value = find(f"{row} progress").get_attribute("value")
            assert value == "100", value
            wait_for("the job's output previewed", lambda: text(tid("preview-name"))
                     == "long-small.mp4", timeout=10)
            return f"job {job_id}: {seen}"

        @step("a new job shows at once and streams live beside many running ones")
        def _():
            # More open jobs than a browser keeps connections to one server (six): a page that
            # streamed each one could send nothing else until one ended.
            background = []
            for i in range(7):
                status, accepted = api_json("POST", "/ffmpeg/process/async", {
                    "priority": "low", "cache": False,
                    "task": {"inputs": [{"file_path": f"{ctx['dir']}/long.mp4"}],
                             "outputs": [{"file": f"busy-{i}.mp4", "options": [
                                 "-c:v", "libx264", "-preset", "veryslow", "-crf", "18"]}]}})
                assert status == 202, accepted
                background.append(accepted["job_id"])
            find("#refresh-jobs").click()
            wait_for("the open jobs listed", lambda: all(
                find_all(f'{tid("jobs")} li[data-job="{j}"]') for j in background))
            # From here every request of the page (the dry run, the submission, the new job's
            # stream) must get through while the other jobs run.
            edited = time.monotonic()
            before = set_editor({"inputs": [{"file_path": f"{ctx['dir']}/long.mp4"}],
                                 "outputs": [{"file": "beside.mp4", "options": [
                                     "-c:v", "libx264", "-preset", "medium", "-crf", "24"]}]})
            dry_run_verdict("Allowed", before)
            earlier = text(tid("run-status"))
            find(tid("run-async")).click()
            job_id = wait_for("the new job's id", lambda: (lambda m: m and m[1] not in earlier and m)(
                re.search(r"job (\S+) (pending|processing|completed)", text(tid("run-status")))),
                timeout=4)[1]
            row = f'{tid("jobs")} li[data-job="{job_id}"]'
            wait_for("the new job in the list", lambda: find_all(row), timeout=2)
            shown = time.monotonic() - edited
            assert shown < 5, f"the dry run and the new job took {shown:.1f} s to get through"
            # Its own stream brings its progress, not a refresh: seen processing, then done.
            seen = []
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                status = find(f"{row} {tid('job-status')}").text.lower()
                if status not in seen:
                    seen.append(status)
                if status in TERMINAL_STATES:
                    break
                time.sleep(0.05)
            for j in background:
                api_json("DELETE", f"/job/{j}")  # the pending ones; running ones finish
            assert seen[-1] == "completed", seen
            assert "processing" in seen, f"never seen processing: {seen}"
            return f"edited, dry-run, submitted and listed in {shown:.1f} s; states {seen}"

        @step("an HLS output plays in hls.js from its playback URL, seeking included")
        def _():
            status, done = api_json("POST", "/ffmpeg/process", {"task": {
                "inputs": [{"file_path": f"{ctx['dir']}/long.mp4"}],
                "outputs": [{"file": "stream.m3u8", "options": [
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "25",
                    "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod"]}]}})
            assert status == 200, done
            url = next(r["playback_url"] for r in done["result"]
                       if r["file_name"] == "stream.m3u8")
            # A page of another origin (a file), as a site embedding the player would be.
            page = os.path.join(tempfile.mkdtemp(prefix="mediaforge-player."), "player.html")
            with open(page, "w") as f:
                f.write(f"""<!doctype html><video id="v" muted playsinline></video>
<script src="file://{ARGS.hlsjs}"></script>
<script>
const v = document.getElementById("v");
window.levels = -1; window.failure = "";
const hls = new Hls();
hls.on(Hls.Events.MANIFEST_PARSED, (_, d) => {{ window.levels = d.levels.length; v.play(); }});
hls.on(Hls.Events.ERROR, (_, d) => {{ if (d.fatal) window.failure = d.type + ": " + d.details; }});
hls.loadSource({json.dumps(url)});
hls.attachMedia(v);
</script>""")
            console = DRIVER.current_window_handle
            DRIVER.switch_to.new_window("tab")
            DRIVER.get("file://" + page)
            state = lambda: DRIVER.execute_script(
                "const v = document.getElementById('v');"
                "return [v.readyState, v.currentTime, v.duration, window.levels, window.failure];")
            wait_for("the stream playing", lambda: (lambda s: s[4] == "" and s[0] >= 3
                     and s[1] > 0.5 or (s[4] and (_ for _ in ()).throw(AssertionError(s[4]))))(
                     state()), timeout=30)
            DRIVER.execute_script("document.getElementById('v').currentTime = 8;")
            wait_for("playing after a seek to 8 s", lambda: (lambda s: s[0] >= 3 and s[1] > 8.2)(
                state()), timeout=30)
            ready, at, length, levels, failure = state()
            DRIVER.close()
            DRIVER.switch_to.window(console)
            assert not failure, failure
            assert levels == 1, levels
            assert abs(length - 12) < 0.5, length
            return f"readyState {ready} at {at:.1f} s of {length:.1f} s, {levels} level(s): {url}"

        def play_ladder(kind, url, script):
            """Plays `url` in a page of another origin with `script`'s player; every rendition
            listed, a seek, then a forced switch to the other rendition, played."""
            page = os.path.join(tempfile.mkdtemp(prefix="mediaforge-player."), f"{kind}.html")
            lib = ARGS.hlsjs if kind == "hls" else ARGS.dashjs
            with open(page, "w") as f:
                f.write(f"""<!doctype html><video id="v" muted playsinline></video>
<script src="file://{lib}"></script>
<script>
const v = document.getElementById("v");
window.heights = []; window.failure = ""; window.rendered = -1;
const url = {json.dumps(url)};
{script}
</script>""")
            console = DRIVER.current_window_handle
            DRIVER.switch_to.new_window("tab")
            DRIVER.get("file://" + page)
            state = lambda: DRIVER.execute_script(
                "const v = document.getElementById('v');"
                "return [v.readyState, v.currentTime, v.videoHeight, window.heights, window.failure,"
                " window.rendered];")
            def check(condition):
                def probe():
                    s = state()
                    if s[4]:
                        raise AssertionError(f"{kind}: {s[4]}")
                    return condition(s)
                return probe
            wait_for(f"the {kind} ladder playing", check(lambda s: s[0] >= 3 and s[1] > 0.5
                     and len(s[3]) == 2), timeout=40)
            DRIVER.execute_script("document.getElementById('v').currentTime = 6;")
            wait_for(f"{kind} playing after a seek to 6 s", check(lambda s: s[0] >= 3 and s[1] > 6.2),
                     timeout=30)
            _, _, showing, heights, _, _ = state()
            # Force the rendition the player is not showing, and see it rendered and played.
            other = next(i for i, h in enumerate(heights) if h != showing)
            DRIVER.execute_script(f"window.force({other});")
            wait_for(f"{kind} switched from {showing}p to {heights[other]}p and playing", check(
                lambda s: s[5] == other and s[2] == heights[other] and s[0] >= 3), timeout=40)
            at = state()[1]
            wait_for(f"{kind} playing on after the switch", check(lambda s: s[1] > at + 0.5), timeout=20)
            ready, at, height, heights, failure, rendered = state()
            DRIVER.close()
            DRIVER.switch_to.window(console)
            return f"{kind}: renditions {sorted(heights)}, switched to {height}p, readyState {ready} at {at:.1f} s"

        @step("the hls and dash recipes play in hls.js and dash.js: every rendition, a seek, a forced switch")
        def _():
            runs = []
            for recipe in ("hls", "dash"):
                status, done = api_json("POST", f"/recipes/{recipe}", {
                    "inputs": [f"{ctx['dir']}/long.mp4"],
                    "params": {"rungs": [480, 240], "segment_s": 2, "preset": "ultrafast"}})
                assert status == 200, done
                assert done["playback_url"], done
                runs.append((recipe, done["playback_url"]))
            hls = """
const hls = new Hls({ capLevelToPlayerSize: false });
hls.on(Hls.Events.MANIFEST_PARSED, (_, d) => { window.heights = d.levels.map(l => l.height); v.play(); });
hls.on(Hls.Events.LEVEL_SWITCHED, (_, d) => { window.rendered = d.level; });
hls.on(Hls.Events.ERROR, (_, d) => { if (d.fatal) window.failure = d.type + ": " + d.details; });
window.force = (i) => { hls.currentLevel = i; };
hls.loadSource(url);
hls.attachMedia(v);
"""
            dash = """
const player = dashjs.MediaPlayer().create();
player.updateSettings({ streaming: { abr: { autoSwitchBitrate: { video: false } } } });
player.on(dashjs.MediaPlayer.events.STREAM_INITIALIZED, () => {
  window.heights = player.getBitrateInfoListFor("video").map(b => b.height); });
player.on(dashjs.MediaPlayer.events.QUALITY_CHANGE_RENDERED, (e) => {
  if (e.mediaType === "video") window.rendered = e.newQuality; });
player.on(dashjs.MediaPlayer.events.ERROR, (e) => { window.failure = JSON.stringify(e.error || e); });
window.force = (i) => { player.setQualityFor("video", i, true); };
player.initialize(v, url, true);
"""
            return " | ".join(play_ladder(kind, url, hls if kind == "hls" else dash)
                              for kind, url in runs)

        def playing_in_page(what, timeout=60):
            """The console's own player (host/console/player.js) has data to play and plays."""
            video = wait_for(f"{what}: the player", lambda: find_all(f"{tid('preview')} video[data-testid=player], {tid('recipe-data')} video[data-testid=player]"), timeout=timeout)[-1]
            wait_for(f"{what}: readyState 3", lambda: DRIVER.execute_script(
                "return arguments[0].readyState", video) >= 3, timeout=40)
            DRIVER.execute_script("arguments[0].play()", video)
            wait_for(f"{what}: playing", lambda: DRIVER.execute_script(
                "return arguments[0].currentTime", video) > 0.3, timeout=30)
            note = text(tid("player-note"))
            assert "error" not in find(tid("player-note")).get_attribute("class"), note
            return DRIVER.execute_script(
                "return [arguments[0].videoWidth, arguments[0].videoHeight]", video)

        @step("plain language answered with a recipe: shown, confirmed, the stream plays in the page")
        def _():
            set_editor({"inputs": [{"file_path": f"{ctx['dir']}/clip.mp4"}],
                        "outputs": [{"file": "unused.mp4"}]})
            box = find(tid("nl-input"))
            box.clear()
            box.send_keys("make it streamable")
            find(tid("nl-translate")).click()
            generated = json.loads(wait_for("the recipe call", lambda: text(tid("nl-generated")),
                                            timeout=30))
            assert generated["recipe"]["name"] == "hls", generated
            assert text(tid("nl-command")).startswith("ffmpeg "), text(tid("nl-command"))
            find(tid("nl-confirm")).click()
            size = playing_in_page("the hls job", timeout=90)
            return f"recipe {generated['recipe']['name']}, playing at {size}"

        @step("the dash recipe from its form plays in the page (dash.js embedded with the console)")
        def _():
            select = find(tid("recipe-select"))
            Select(select).select_by_value("dash")
            rungs = wait_for("the rungs field", lambda: find("#recipe-param-rungs"))
            rungs.clear()
            rungs.send_keys("240")
            find(tid("recipe-run")).click()
            wait_for("the recipe", lambda: "done in" in text(tid("recipe-status")), timeout=90)
            size = playing_in_page("the dash result")
            assert size[1] == 240, size
            return f"playing at {size}"

        @step("usage grows with the runs")
        def _():
            wait_for("usage above zero", lambda: float(
                find(tid("usage-meter")).get_attribute("value")) > 0)
            return text(tid("usage")).replace("\n", " | ")

        @step("delete a file")
        def _():
            row = find(f'{tid("files")} li[data-file="long.mp4"]')
            delete = next(b for b in row.find_elements(By.CSS_SELECTOR, "button")
                          if b.text == "Delete")
            delete.click()
            delete.click()
            wait_for("long.mp4 gone", lambda: not find_all(
                f'{tid("files")} li[data-file="long.mp4"]'))

        @step("no CSP violation or script error; the key in no URL or log")
        def _():
            logs = DRIVER.get_log("browser")
            # The API's 4xx answers (the wrong key, refused dry runs) are logged as failed
            # loads; anything else severe is a fault of the page.
            bad = [e["message"] for e in logs if e["level"] == "SEVERE"
                   and not re.search(r"status of 4\d\d ", e["message"])]
            assert not bad, bad
            csp = [e["message"] for e in logs if "Content Security Policy" in e["message"]]
            assert not csp, csp
            with open(ARGS.server_log, encoding="utf-8", errors="replace") as f:
                log = f.read()
            assert key not in log, "the key is in the server's log"
            assert "/console" in log, "the server log is the right one"
            return f"{len(logs)} browser log entries"

        @step("a 300 MB resumable upload cut by killing the browser goes on in a new one")
        def _():
            global DRIVER
            big_key = ARGS.big_key
            # 300 MB of noise, made here; the upload is throttled so the kill lands mid-way.
            size = 300 * 1000 * 1000
            path = os.path.join(ARGS.media, "killed.bin")
            digest = hashlib.sha256()
            with open(path, "wb") as f:
                for _ in range(size // 10_000_000):
                    block = os.urandom(10_000_000)
                    digest.update(block)
                    f.write(block)

            def connect():
                DRIVER.get(ARGS.base + "/console")
                find(tid("api-key")).send_keys(big_key)
                find(tid("connect")).click()
                wait_for("connected", lambda: "Connected" in text(tid("message")))

            def pick(dir_id):
                wait_for("the directory", lambda: find_all(
                    f'{tid("directories")} li[data-dir="{dir_id}"] button'))[0].click()

            # A browser of its own: no key kept from the steps before, a profile to resume from.
            try:
                DRIVER.quit()
            except Exception:
                pass
            profile = tempfile.mkdtemp(prefix="mediaforge-console-kill.")
            DRIVER = start_browser(profile)
            DRIVER.set_script_timeout(30)
            connect()
            find(tid("new-directory")).click()
            dir_id = wait_for("a directory", lambda: find_all(
                f"{tid('directories')} li[data-dir]"))[0].get_attribute("data-dir")
            pick(dir_id)
            DRIVER.execute_cdp_cmd("Network.enable", {})
            DRIVER.execute_cdp_cmd("Network.emulateNetworkConditions", {
                "offline": False, "latency": 0, "downloadThroughput": -1,
                "uploadThroughput": 12 * 1000 * 1000})
            find(f"{tid('upload')} input[type=file]").send_keys(path)
            upload_url = kept_upload_url("k.includes('killed.bin')")

            def offset():
                return tus_offset(upload_url, big_key)
            # 40 % counted by the server (whole 8 MiB PATCHes), then the kill: at 12 MB/s that is
            # seconds after the upload URL went into localStorage, which Chromium writes to the
            # profile's disk a few seconds after a change (a kill loses what it has not).
            wait_for("40 % counted", lambda: (offset()[1] or 0) > size * 2 // 5, timeout=90)
            browser = [int(p) for p in subprocess.run(
                ["pgrep", "-P", str(DRIVER.service.process.pid)],
                capture_output=True, text=True).stdout.split()]
            assert browser, "no browser process under chromedriver"
            for pid in browser:
                os.kill(pid, signal.SIGKILL)
            try:
                DRIVER.quit()
            except Exception:
                pass
            status, at = offset()
            assert status == 200 and 0 < at < size, f"after the kill: {status} {at}"

            # A new browser on the same profile: tus-js-client finds the upload it kept in
            # localStorage and resumes from the server's offset.
            DRIVER = start_browser(profile)
            DRIVER.set_script_timeout(30)
            connect()
            pick(dir_id)
            find(f"{tid('upload')} input[type=file]").send_keys(path)
            wait_for("killed.bin in the files",
                     lambda: "MiB" in find(f'{tid("files")} li[data-file="killed.bin"]').text,
                     timeout=180)
            status, end = offset()
            assert status == 404 or end == size, \
                f"the first upload was not the one finished: {status} {end}"
            status, _, got = http("GET", f"/file/download/{dir_id}/killed.bin",
                                  {"Authorization": f"Basic {big_key}"})
            link = json.loads(got)
            stored_digest = hashlib.sha256()
            with urllib.request.urlopen(link["download"]["url"], timeout=60) as res:
                while block := res.read(1 << 20):
                    stored_digest.update(block)
            assert stored_digest.hexdigest() == digest.hexdigest(), "the stored bytes differ"
            os.remove(path)
            shutil.rmtree(profile, ignore_errors=True)
            return f"killed at {at} of {size} bytes, resumed in a new browser, sha256 equal"

    except Exception as e:
        RESULTS.append(("browser start", False, str(e)))
        traceback.print_exc()
    finally:
        if DRIVER is not None:
            try:
                DRIVER.quit()
            except Exception:
                pass
        shutil.rmtree(profile, ignore_errors=True)

    passed = sum(1 for _, ok, _ in RESULTS if ok)
    failed = len(RESULTS) - passed
    print(f"screenshots: {ARGS.artifacts}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
