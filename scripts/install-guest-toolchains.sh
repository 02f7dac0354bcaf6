#!/usr/bin/env bash
# Installs the toolchains that build the WebAssembly guest examples from source:
#   C   -> Debian's clang + lld (wasm32 target, wasm-ld); with them Debian's wabt (wat2wasm),
#          which validates the host's own .wat files in the tests
#   Zig -> the `ziglang` wheel from PyPI, into the Python that runs the tests
#   Go  -> checked only: Go >= 1.21 must be on PATH (CI images have it); Go
#          guests need 1.24, which `go` fetches itself as a toolchain module
#          from the Go module proxy when the installed one is older.
#   Rust -> rustup must be on PATH (CI images have it); the wasm32-wasip1 target
#          (Redpanda Data Transforms guests) and wasm32-unknown-unknown (Extism
#          plug-ins, Kafka Connect ABI Rust guests) are added when missing;
#          cargo fetches the SDK crates from crates.io on first build.
# Idempotent and fast when everything is present: apt-get update runs only
# when a Debian tool is missing.  Needs root for apt-get (CI runs as root).
#
# Usage: scripts/install-guest-toolchains.sh [PYTHON]
#   PYTHON defaults to $PYTHON, then .venv/bin/python, then python3.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
python="${1:-${PYTHON:-}}"
if [[ -z "$python" ]]; then
    if [[ -x "$repo_root/.venv/bin/python" ]]; then
        python="$repo_root/.venv/bin/python"
    else
        python="python3"
    fi
fi

as_root() {
    if [[ "$(id -u)" == "0" ]]; then "$@"; else sudo "$@"; fi
}

install_c_toolchain() {
    if command -v clang >/dev/null && command -v wasm-ld >/dev/null && command -v wat2wasm >/dev/null; then
        echo "guest toolchains: clang + wasm-ld + wabt already installed"
        return
    fi
    echo "guest toolchains: installing clang, lld and wabt (the tests validate our .wat files) from Debian"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends clang lld wabt >/dev/null
    # Debian ships versioned names only in some releases; make sure the plain ones exist.
    command -v wasm-ld >/dev/null || { echo "wasm-ld missing after installing lld" >&2; exit 1; }
}

install_zig_toolchain() {
    if "$python" -c "import ziglang" 2>/dev/null; then
        echo "guest toolchains: ziglang already installed for $python"
        return
    fi
    echo "guest toolchains: installing ziglang from PyPI for $python"
    "$python" -m pip install --quiet "ziglang==0.17.1"
}

check_go_toolchain() {
    if ! command -v go >/dev/null; then
        echo "guest toolchains: Go is not on PATH; install Go 1.21 or newer to build the Go guests" >&2
        exit 1
    fi
    # go.mod files of Go guests say `go 1.24`: an older go (>= 1.21) switches to it by itself.
    GOTOOLCHAIN="${GOTOOLCHAIN:-auto}" GOFLAGS= go version >/dev/null
}

install_rust_targets() {
    if ! command -v rustup >/dev/null || ! command -v cargo >/dev/null; then
        echo "guest toolchains: rustup and cargo are not on PATH; install Rust with rustup to build the Rust guests" >&2
        exit 1
    fi
    local installed target
    installed="$(rustup target list --installed)"
    for target in wasm32-unknown-unknown wasm32-wasip1; do
        if grep -qx "$target" <<<"$installed"; then
            echo "guest toolchains: rust target $target already installed"
        else
            echo "guest toolchains: adding rust target $target"
            rustup target add "$target" >/dev/null
        fi
    done
}

install_c_toolchain
install_zig_toolchain
check_go_toolchain
install_rust_targets
echo "guest toolchains: ready (clang $(clang --version | head -1 | grep -o '[0-9][0-9.]*' | head -1), zig $("$python" -m ziglang version), $(go version | cut -d' ' -f3), $(rustc --version | cut -d' ' -f1-2))"
