#!/usr/bin/env bash
# The image's base, made locally from Debian's packages (no container registry is needed):
# bookworm with ffmpeg, bubblewrap and CA certificates and the unprivileged user the service
# runs as (uid 10001, home /var/lib/mediaforge), by mmdebstrap, imported into podman as
# localhost/mediaforge-base:bookworm. Made once per machine; `make image` calls it. The user is
# made here rather than by a RUN step so that building the image runs no container.
set -euo pipefail
name=localhost/mediaforge-base:bookworm
if podman image exists "$name"; then
  exit 0
fi
cache="${MEDIAFORGE_CACHE:-$HOME/.cache/mediaforge}/image"
mkdir -p "$cache"
tar="$cache/base-bookworm.tar"
echo "making the image's base with mmdebstrap (once per machine)" >&2
mmdebstrap --variant=apt --include=ffmpeg,bubblewrap,ca-certificates \
  --aptopt='Apt::Install-Recommends "false"' \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
  --customize-hook='chroot "$1" useradd --system --uid 10001 --user-group --home-dir /var/lib/mediaforge --create-home mediaforge' \
  bookworm "$tar" \
  "deb http://deb.debian.org/debian bookworm main" \
  "deb http://deb.debian.org/debian bookworm-updates main" \
  "deb http://deb.debian.org/debian-security bookworm-security main" >&2
podman import "$tar" "$name" >&2
rm -f "$tar"
