"""Registers the WebAssembly transform."""

from host_functions.transform import WasmTransform
from smt.plugins import hookimpl


@hookimpl
def smt_transforms():
    return [WasmTransform]
