# The operator contract: `make build`, `make run`, `make test` (and `make bench`).
# Each target installs what it needs on a fresh Debian machine first.

CARGO_TARGET_DIR ?= $(CURDIR)/target
export CARGO_TARGET_DIR
WASM_OUT   := $(CARGO_TARGET_DIR)/wasm32-wasip2/release
DIST       := plugins/dist
PLUGINS    := command_builder translator webhook_formatter recipes
CONFIG     ?= config/mediaforge.toml
APT_PKGS   := ffmpeg bubblewrap
SUDO       := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all build host run test test-servers test-llm test-llm-corpus test-image image bench bench-build bench-split setup wasm-target packages plugins fmt check clean

all: build

## setup: the wasm32-wasip2 target and the system packages (ffmpeg, bubblewrap), when missing
setup: wasm-target packages

wasm-target:
	@rustup target list --installed 2>/dev/null | grep -qx wasm32-wasip2 || rustup target add wasm32-wasip2

packages:
	@missing=""; \
	 { command -v ffmpeg && command -v ffprobe; } >/dev/null || missing="$$missing ffmpeg"; \
	 command -v bwrap   >/dev/null || missing="$$missing bubblewrap"; \
	 if [ -n "$$missing" ]; then \
	   echo "installing:$$missing"; \
	   $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(APT_PKGS) >/dev/null; \
	 fi

## plugins: every WebAssembly component (default plugins, test fixtures, examples), built once
plugins: wasm-target
	cd plugins && cargo build --release --target wasm32-wasip2
	@mkdir -p $(DIST)
	@for p in $(PLUGINS); do cp $(WASM_OUT)/$$p.wasm $(DIST)/; done

host:
	cargo build --release -p mediaforge --bin mediaforge $(HOST_FLAGS)

## build: the release binary, the default plugins and the system packages, side by side (the
## package download overlaps the compile; cargo's own lock orders the two builds)
build:
	@$(MAKE) --no-print-directory -j3 packages plugins host

## run: serve on the embedded defaults
run: build
	@echo "demo API key: $$(sed -n 's/^api_key = "\(.*\)"/\1/p' $(CONFIG) | head -1)"
	@echo "try: curl -H \"Authorization: Basic <key>\" http://127.0.0.1:8080/directory"
	@echo "or open the web console: http://127.0.0.1:8080/console"
	$(CARGO_TARGET_DIR)/release/mediaforge serve --config $(CONFIG)

## test-servers: the S3-compatible server of the scale-out tests (built once per machine; the
## SurrealDB server is a workspace binary, built with the others)
test-servers:
	@bash tests/servers/install-s3s.sh >/dev/null

## test: plugin unit tests (native) and the translator's sourced corpus's refusals, then the
## host's unit and black-box tests (debug build), a crate per world from `plugin new` (built,
## checked, run), the MCP endpoint through the Python SDK, resumable uploads through tuspy,
## schemathesis and the console in headless Chromium
test: packages plugins test-servers
	cd plugins && cargo test --lib --workspace --exclude misbehaving --exclude changed-wit --exclude formatter-0-1-0 --exclude panicking --exclude hostile-recipe --target $$(rustc -vV | sed -n "s/^host: //p")
	cd plugins && cargo test -p translator --test corpus --target $$(rustc -vV | sed -n "s/^host: //p")
	cargo build --workspace --bins --benches
	MEDIAFORGE_TEST_WASM=$(WASM_OUT) cargo test --workspace
	bash tests/plugins/new.sh
	bash tests/mcp/run.sh
	bash tests/tus/run.sh
	bash tests/schemathesis/run.sh
	bash tests/console/run.sh

## image: an OCI image with podman: the release binary (stripped), the default plugins and the
## documented config on a Debian bookworm base made locally by mmdebstrap (config/image/base.sh)
IMAGE ?= localhost/mediaforge:latest
image: build
	@{ command -v podman && command -v mmdebstrap; } >/dev/null || \
	  ($(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq podman mmdebstrap >/dev/null)
	bash config/image/base.sh
	rm -rf $(CARGO_TARGET_DIR)/image && mkdir -p $(CARGO_TARGET_DIR)/image/plugins
	strip -o $(CARGO_TARGET_DIR)/image/mediaforge $(CARGO_TARGET_DIR)/release/mediaforge
	cp $(CONFIG) $(CARGO_TARGET_DIR)/image/mediaforge.toml
	cp $(addprefix $(DIST)/,$(addsuffix .wasm,$(PLUGINS))) $(CARGO_TARGET_DIR)/image/plugins/
	podman build -q -f Containerfile -t $(IMAGE) $(CARGO_TARGET_DIR)/image

## test-image: the image started as an operator would, the README's walkthrough run against it
test-image: image
	IMAGE=$(IMAGE) bash tests/image/run.sh

## test-llm: the LLM translator against a real local model (SmolLM2 via llama-cpp-python); slow
test-llm: packages plugins
	bash tests/llm/run.sh

## test-llm-corpus: the sourced corpus's measuring part with the LLM translator as fallback; slow
test-llm-corpus: packages
	bash tests/llm/run.sh corpus

## bench-build: a fresh clone built with an empty target directory, timed to /healthz
bench-build:
	bash tests/bench/first-run.sh

## bench: figures and ratios against the same work done directly (release build)
bench: build
	@command -v wrk >/dev/null || ($(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq wrk >/dev/null)
	MEDIAFORGE_TEST_WASM=$(WASM_OUT) cargo bench --bench service
	MEDIAFORGE_TEST_WASM=$(WASM_OUT) cargo test --release --test api every_example -- --nocapture 2>&1 | grep -E "^ +[a-z0-9-]+: |examples:"

## bench-split: two instances pinned to one core each (taskset) splitting a 60 s 720p encode,
## against one ffmpeg pinned to one core; prints the ratio and the stitch checks
## (the release server and a release SurrealDB server, as deployed; the first run builds the
## latter, about as long as the host's release build; the test harness is the debug one)
bench-split: packages plugins test-servers host
	@command -v taskset >/dev/null || ($(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq util-linux >/dev/null)
	cargo build --workspace --bins
	cargo build --release -p mediaforge-test-surreal
	MEDIAFORGE_TEST_BIN=$(CARGO_TARGET_DIR)/release/mediaforge MEDIAFORGE_TEST_SURREAL=$(CARGO_TARGET_DIR)/release/surreal \
	  MEDIAFORGE_TEST_WASM=$(WASM_OUT) \
	  cargo test --test api split::bench_split -- --ignored --nocapture 2>&1 | grep -E "^(split encode|  )"

fmt:
	cargo fmt --all
	cd plugins && cargo fmt --all

clean:
	cargo clean
	rm -rf $(DIST)
