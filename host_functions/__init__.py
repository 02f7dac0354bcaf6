"""The WebAssembly host-function ABI and the Wasm transform.

Public API: :class:`WasmTransform` (registered as ``wasm`` and as the Java
``com.github.lburgazzoli.kafka.transformer.wasm.WasmTransformer``),
:class:`HostFunction` for plugin-provided host functions, the ABI table and
version, and :class:`WasmGuestError`.  The ABI reference is ``ABI.md``.

The names are loaded when first used, so importing one module of the
package (the adapter's layout, the ABI table) does not load wasmtime,
pyarrow and the whole Wasm stack.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from host_functions.kafka_connect.abi import ABI_FUNCTIONS, ABI_VERSION, AbiFunction
    from host_functions.kafka_connect.host_function import HostCall, HostFunction
    from host_functions.runtime.sandbox import WasmGuestError
    from host_functions.transform import WasmTransform

__all__ = ["ABI_FUNCTIONS", "ABI_VERSION", "AbiFunction", "HostCall", "HostFunction", "WasmGuestError", "WasmTransform"]

#: Public name -> the module that defines it.
_DEFINED_IN = {
    "ABI_FUNCTIONS": "host_functions.kafka_connect.abi",
    "ABI_VERSION": "host_functions.kafka_connect.abi",
    "AbiFunction": "host_functions.kafka_connect.abi",
    "HostCall": "host_functions.kafka_connect.host_function",
    "HostFunction": "host_functions.kafka_connect.host_function",
    "WasmGuestError": "host_functions.runtime.sandbox",
    "WasmTransform": "host_functions.transform",
}


def __getattr__(name: str) -> Any:
    module = _DEFINED_IN.get(name)
    if module is None:
        raise AttributeError(f"module 'host_functions' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
