"""Registers the WebAssembly transform and the guest ABIs it runs."""

from host_functions.builtin_abis import BUILTIN_ABIS
from host_functions.transform import WasmTransform
from smt.plugins import hookimpl


@hookimpl
def smt_transforms():
    return [WasmTransform]


@hookimpl
def smt_guest_abis():
    return list(BUILTIN_ABIS)
