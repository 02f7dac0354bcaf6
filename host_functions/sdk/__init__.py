"""Guest-side SDKs for writing WebAssembly transforms, and the builder that compiles them.

The SDKs themselves are source files beside this module: ``c/smt_guest.h`` (+ ``smt_guest.c``)
and ``zig/smt_guest.zig``.  :func:`build_guest` compiles a guest source file to ``.wasm``;
:func:`build_cargo_guest` builds a Rust guest's Cargo project.
"""

from host_functions.sdk.build import GuestBuildError, ToolchainMissingError, build_guest, supported_extensions
from host_functions.sdk.cargo import build_cargo_guest

__all__ = ["build_guest", "build_cargo_guest", "supported_extensions", "GuestBuildError", "ToolchainMissingError"]
