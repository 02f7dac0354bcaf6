"""The WebAssembly host-function ABI and the Wasm transform."""
