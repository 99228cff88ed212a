"""Resumable uploads on the S3 backend through tuspy, with two instances (A and B) sharing one
database and one bucket: an upload begun on A, its client killed mid-way, resumed on B from the
server's offset, the stored bytes checked; no instance's disk holding the upload; a wrong checksum
refused after its parts were sent, and the right bytes stored in their place; two PATCHes of one
upload at once (the second refused with 423); an empty upload; an over-plan Upload-Length
refused before any multipart upload starts; termination and expiry leaving no object and no
pending multipart upload. Prints a line per check and `N passed, M failed`."""

import base64
import hashlib
import os
import subprocess
import sys
import threading
import time

import requests

A, B, KEY, SOURCE, WORK, S3_ROOT, BUCKET, A_PID, B_PID = sys.argv[1:10]
AUTH = {"Authorization": f"Basic {KEY}"}
TUS = {"Tus-Resumable": "1.0.0", **AUTH}
MiB = 1024 * 1024
# The first client's chunks end between parts (S3 parts are at least 5 MiB): tails are made and
# read back. The second's are a whole 8 MiB part and some.
FIRST_CHUNK = 3_000_000
SECOND_CHUNK = 8 * MiB + 12345
results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(f"{'ok  ' if ok else 'FAIL'}  {name}" + ("" if ok else f"  {detail}"), flush=True)


def api(base, method, path, body=None):
    r = requests.request(method, base + path, json=body, headers=AUTH, timeout=60)
    return r.status_code, (r.json() if r.content else None)


def objects():
    """The bucket's objects (s3s-fs keeps each as a file under the bucket's folder)."""
    base = os.path.join(S3_ROOT, BUCKET)
    out = []
    for d, _, names in os.walk(base):
        out += [os.path.relpath(os.path.join(d, n), base) for n in names if not n.startswith(".")]
    return sorted(out)


def pending_multipart():
    """Multipart uploads started and neither completed nor aborted: s3s-fs keeps each as
    `.upload-<id>.json` (and its parts as `.upload_id-<id>.part-<n>`) in its root."""
    return sorted(n for n in os.listdir(S3_ROOT) if n.startswith(".upload"))


def on_disk(name):
    """Files under an instance's tus spool directory (there must be none on S3)."""
    d = os.path.join(WORK, name, "data", "tus")
    return [os.path.join(d, n) for n in os.listdir(d)] if os.path.isdir(d) else []


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(4 * MiB), b""):
            h.update(block)
    return h.hexdigest()


def downloaded_sha256(base, dir_id, name):
    status, dl = api(base, "GET", f"/file/download/{dir_id}/{name}")
    if status != 200:
        return f"download answered {status}: {dl}"
    h = hashlib.sha256()
    with requests.get(dl["download"]["url"], stream=True, timeout=600) as r:
        for block in r.iter_content(4 * MiB):
            h.update(block)
    return h.hexdigest()


status, d = api(A, "POST", "/directory", {"ttl": 3600})
dir_id = d["directory"]["id"]
url_file = os.path.join(WORK, "upload-url")
size = os.path.getsize(SOURCE)
rss_before = {"A": peak_rss_mb(A_PID), "B": peak_rss_mb(B_PID)}

# One client process: creates the upload on A (writing its URL first), or resumes the URL given.
UPLOAD = f"""
import sys
from tusclient import client
base, chunk = sys.argv[1], int(sys.argv[2])
url = sys.argv[3] if len(sys.argv) > 3 else None
c = client.TusClient(base + '/tus', headers={AUTH!r})
u = c.uploader({SOURCE!r}, chunk_size=chunk, metadata={{'filename': 'big.nut', 'dir_id': {dir_id!r}}}, url=url)
if url is None:
    u.set_url(u.create_url())
    open({url_file!r}, 'w').write(u.url)
u.upload()
print('done', u.offset, flush=True)
"""
started = time.monotonic()
first = subprocess.Popen([sys.executable, "-c", UPLOAD, A, str(FIRST_CHUNK)])
offset, spooled = 0, []
deadline = time.monotonic() + 300
while time.monotonic() < deadline and first.poll() is None:
    time.sleep(0.2)
    spooled += on_disk("a") + on_disk("b")
    if os.path.exists(url_file) and open(url_file).read().strip():
        h = requests.head(open(url_file).read().strip(), headers=TUS, timeout=30)
        offset = int(h.headers.get("Upload-Offset", "0"))
        if offset >= size * 0.4:
            break
first.kill()
first.wait()
url_a = open(url_file).read().strip()
url_b = B + url_a[len(A):]
check("the upload's URL is A's", url_a.startswith(A + "/tus/"), url_a)
h = requests.head(url_b, headers=TUS, timeout=30)
kept = int(h.headers.get("Upload-Offset", "-1"))
check("B answers for the upload A took: part of the file in", h.status_code == 200 and 0 < kept < size
      and int(h.headers["Upload-Length"]) == size, (h.status_code, kept, size))
check("that part is whole chunks, every one the client sent in full", kept % FIRST_CHUNK == 0, kept)
uploads = pending_multipart()
check("the bytes are in one pending multipart upload of the bucket",
      len([n for n in uploads if n.endswith(".json")]) == 1
      and any(".part-" in n for n in uploads), uploads)

second = subprocess.run([sys.executable, "-c", UPLOAD, B, str(SECOND_CHUNK), url_b],
                        capture_output=True, text=True, timeout=600)
elapsed = time.monotonic() - started
check("a second client resumes against B from the server's offset and finishes",
      second.returncode == 0 and f"done {size}" in second.stdout, second.stdout + second.stderr[-2000:])
print(f"      {size / MiB:.0f} MiB through A then B in {elapsed:.1f} s", flush=True)
status, info = api(B, "GET", f"/file/{dir_id}/big.nut")
check("the file is ready at its full size", status == 200 and info["file_info"]["file_size"] == size, info)
got, want = downloaded_sha256(A, dir_id, "big.nut"), sha256_file(SOURCE)
check("its bytes are the source's (sha256)", got == want, (got, want))
check("the finished upload is gone", requests.head(url_b, headers=TUS, timeout=30).status_code == 404)
spooled += on_disk("a") + on_disk("b")
check("no instance's disk held any of the upload", not spooled, spooled[:5])
check("no multipart upload left pending, no tail object left",
      not pending_multipart() and not [o for o in objects() if o.startswith("tus-")],
      (pending_multipart(), objects()))
rss = {"A": peak_rss_mb(A_PID), "B": peak_rss_mb(B_PID)}
print(f"      peak RSS (MiB) before/after: A {rss_before['A']:.0f}/{rss['A']:.0f}, "
      f"B {rss_before['B']:.0f}/{rss['B']:.0f}", flush=True)
check("neither instance's memory grew by the file's size",
      all(rss[k] - rss_before[k] < size / MiB / 2 for k in rss), (rss_before, rss))


def create(base, length, name):
    meta = f"filename {base64.b64encode(name.encode()).decode()},dir_id {base64.b64encode(dir_id.encode()).decode()}"
    return requests.post(base + "/tus", headers={**TUS, "Upload-Length": str(length), "Upload-Metadata": meta}, timeout=30)


def patch(url, off, body, extra=None):
    return requests.patch(url, data=body, headers={
        **TUS, "Upload-Offset": str(off), "Content-Type": "application/offset+octet-stream", **(extra or {})}, timeout=60)


def offset_of(url):
    return requests.head(url, headers=TUS, timeout=30).headers.get("Upload-Offset")


# A wrong checksum: the PATCH's bytes (more than a part, so a part is sent before the checksum
# is known) are not counted; the right bytes, sent next by the other instance, take their place.
right = os.urandom(9 * MiB)
wrong = os.urandom(9 * MiB)
r = create(A, len(right), "checked.bin")
checked = r.headers.get("Location", "")
checked_b = B + checked[len(A):]
digest = base64.b64encode(hashlib.sha256(right).digest()).decode()
r = patch(checked, 0, wrong, {"Upload-Checksum": f"sha256 {digest}"})
check("a checksum that does not match: 460 after the bytes, nothing counted",
      r.status_code == 460 and r.json()["ok"] is False and offset_of(checked_b) == "0", (r.status_code, r.text))
r = patch(checked_b, 0, right, {"Upload-Checksum": f"sha256 {digest}"})
check("the right bytes through B: 204, the upload done",
      r.status_code == 204 and r.headers.get("Upload-Offset") == str(len(right)), (r.status_code, r.text))
got = downloaded_sha256(A, dir_id, "checked.bin")
check("the stored file holds the right bytes, not the refused ones",
      got == hashlib.sha256(right).hexdigest(), got)

# Two PATCHes of one upload at once, on two instances: the second waits for the first (which
# holds the upload's lock, renewing it as it goes), then is refused with 423; the first's bytes
# are the file's.
slow_bytes = os.urandom(16 * MiB)
r = create(A, len(slow_bytes), "slow.bin")
slow = r.headers.get("Location", "")


def dribble():
    for i in range(16):
        yield slow_bytes[i * MiB:(i + 1) * MiB]
        time.sleep(0.8)


first_answer = {}
t = threading.Thread(target=lambda: first_answer.update(r=patch(slow, 0, dribble())))
t.start()
time.sleep(2)
t0 = time.monotonic()
r = patch(B + slow[len(A):], 0, b"x")
waited = time.monotonic() - t0
t.join()
first = first_answer.get("r")
check("a PATCH while another of the same upload runs on the other instance: 423 after waiting",
      r.status_code == 423 and r.json()["ok"] is False and waited >= 9, (r.status_code, r.text, waited))
check("... and the running one (past a lease renewal) finishes the file with its bytes",
      first is not None and first.status_code == 204
      and downloaded_sha256(B, dir_id, "slow.bin") == hashlib.sha256(slow_bytes).hexdigest(),
      first is not None and (first.status_code, first.text))

# An empty file: S3 completes no multipart upload without a part.
r = create(B, 0, "empty.bin")
r = patch(r.headers.get("Location", ""), 0, b"")
status, info = api(A, "GET", f"/file/{dir_id}/empty.bin")
check("an empty upload: one empty PATCH makes the file ready, 0 bytes", r.status_code == 204
      and status == 200 and info["file_info"]["file_size"] == 0, (r.status_code, status, info))

before = (objects(), pending_multipart())
r = create(A, 2 * 1024 * 1024 * 1024, "huge.bin")
check("an Upload-Length over the plan: 403 before any byte, the API's message", r.status_code == 403
      and r.json()["ok"] is False and "max file size" in r.json()["error"], (r.status_code, r.text))
check("... and no multipart upload started, no object made", (objects(), pending_multipart()) == before,
      (before, objects(), pending_multipart()))

# Termination: a part and a tail in the bucket (6 MiB then 3 MB), then DELETE on the other
# instance.
r = create(A, 20 * MiB, "ended.bin")
ended = r.headers.get("Location", "")
r1 = patch(ended, 0, os.urandom(6 * MiB))
r2 = patch(B + ended[len(A):], 6 * MiB, os.urandom(3_000_000))
tails = [o for o in objects() if o.startswith("tus-")]
check("a PATCH ending between parts leaves its tail in the bucket, not on a disk",
      r1.status_code == 204 and r2.status_code == 204 and len(tails) == 1
      and not on_disk("a") + on_disk("b"), (r1.status_code, r2.status_code, tails))
r = requests.delete(B + ended[len(A):], headers=TUS, timeout=30)
status, _ = api(A, "GET", f"/file/{dir_id}/ended.bin")
check("termination: 204, the upload, its record, its tail and its multipart upload gone",
      r.status_code == 204 and status == 404 and (objects(), pending_multipart()) == before,
      (r.status_code, status, before, objects(), pending_multipart()))

# Expiry: the same left alone.
r = create(B, 20 * MiB, "abandoned.bin")
left = r.headers.get("Location", "")
r1 = patch(left, 0, os.urandom(6 * MiB))
r2 = patch(left, 6 * MiB, os.urandom(3_000_000))
check("an upload with a part and a tail in the bucket", r1.status_code == 204 and r2.status_code == 204
      and len(pending_multipart()) > len(before[1]) and len(objects()) == len(before[0]) + 1,
      (r1.status_code, r2.status_code, objects(), pending_multipart()))
time.sleep(14)
status, _ = api(A, "GET", f"/file/{dir_id}/abandoned.bin")
check("an upload left alone past its expiry: removed with its record",
      requests.head(left, headers=TUS, timeout=30).status_code == 404 and status == 404, status)
check("... leaving no object and no pending multipart upload in the bucket",
      (objects(), pending_multipart()) == before, (before, objects(), pending_multipart()))

failed = results.count(False)
print(f"{len(results) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
