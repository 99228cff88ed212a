#!/usr/bin/env bash
# The S3-compatible server of the scale-out tests: s3s-fs from crates.io, which checks SigV4
# signatures (headers and presigned URLs). 0.14 is the last line that builds on Rust 1.95.
# Installed once per machine into the cache and reused by every later run.
set -euo pipefail
version=0.14.1
cache="${MEDIAFORGE_CACHE:-$HOME/.cache/mediaforge}"
bin="$cache/bin/s3s-fs-$version"
if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi
mkdir -p "$cache/bin"
work="$cache/install/s3s-fs-$version"
echo "installing s3s-fs $version (once per machine)" >&2
cargo install s3s-fs --version "$version" --features binary --locked --quiet \
  --root "$work" --target-dir "$cache/install/target" >&2
mv "$work/bin/s3s-fs" "$bin"
rm -rf "$work" "$cache/install/target"
echo "$bin"
