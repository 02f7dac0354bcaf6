"""Names of the host's own generated Wasm modules.

wasmtime's backtraces name the module of each frame; a trap's report leaves
out the frames of these modules (the Kafka Connect adapter and its dispatch
shim), which are the host's code and not the guest's.  This module imports
nothing, so the adapter generator can name its modules without loading
wasmtime.
"""

from __future__ import annotations

__all__ = ["ADAPTER_MODULE_NAME", "SHIM_MODULE_NAME", "HOST_MODULES"]

ADAPTER_MODULE_NAME, SHIM_MODULE_NAME = "smt_adapter", "smt_shim"

HOST_MODULES = frozenset({ADAPTER_MODULE_NAME, SHIM_MODULE_NAME})
