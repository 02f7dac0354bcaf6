"""The WebAssembly host-function ABI and the Wasm transform.

Public API: :class:`WasmTransform` (registered as ``wasm`` and as the Java
``com.github.lburgazzoli.kafka.transformer.wasm.WasmTransformer``),
:class:`HostFunction` for plugin-provided host functions, the ABI table and
version, and :class:`WasmGuestError`.  The ABI reference is ``ABI.md``.
"""

from host_functions._abi import ABI_FUNCTIONS, ABI_VERSION, AbiFunction
from host_functions._host_function import HostCall, HostFunction
from host_functions._sandbox import WasmGuestError
from host_functions.transform import WasmTransform

__all__ = ["ABI_FUNCTIONS", "ABI_VERSION", "AbiFunction", "HostCall", "HostFunction", "WasmGuestError", "WasmTransform"]
