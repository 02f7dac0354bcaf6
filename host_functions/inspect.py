"""``smt wasm inspect``: what the host sees in a guest module, and the adapter it generates for it.

The fast path's adapter is generated per guest (see ``host_functions/kafka_connect/ADAPTER.md``
for its memory layout); :func:`adapter_text` prints the one a guest gets, so
that a problem in the generated code can be read, not guessed.
"""

from __future__ import annotations

from pathlib import Path

import wasmtime

from host_functions.guest_abi import KAFKA_CONNECT, detect_abi, registered_abis
from host_functions.kafka_connect.adapter import adapter_wat
from host_functions.kafka_connect.guest import GuestModule, inspect_guest
from host_functions.runtime.engine import runtime
from host_functions.runtime.module_file import read_module
from host_functions.runtime.sandbox import error_cause
from host_functions.wasm_sections import read_uleb, sections
from smt.errors import ConfigError, SmtError

__all__ = ["describe_module", "adapter_text", "readable_columns", "InspectError"]


class InspectError(SmtError):
    """The module cannot be inspected; the message names the file and why."""


#: Host function -> the input columns it reads (staged for the adapter once the guest calls it).
_READS = {
    "get_key": ("key",),
    "get_value": ("value",),
    "get_topic": ("topic",),
    "get_header": ("headers",),
    "set_header": ("headers",),
    "get_timestamp": ("timestamp",),
    "get_partition": ("partition",),
    "get_offset": ("offset",),
    "get_record": ("key", "value", "topic", "headers"),
}
_NOT_ENTRIES = frozenset({"alloc", "dealloc", "smt_abi_version", "_initialize", "_start"})
#: module.max.bytes's default: inspect reads what a transform would read.
_MAX_BYTES = 256 * 1024 * 1024


def readable_columns(guest: GuestModule) -> frozenset[str]:
    """The input columns the guest's imports can read: what the adapter stages once it reads them all."""
    return frozenset(column for name in guest.imports for column in _READS.get(name, ()))


def describe_module(path: str | Path, function_name: str | None = None) -> str:
    """A summary of the module: ABI, imports, entry functions, name section, fast-path shape."""
    module = _compile(path)
    abi = _abi_name(module, path)
    entries = _entry_functions(module)
    names = {(imp.module, imp.name) for imp in module.imports}
    lines = [
        f"module: {path} ({Path(path).stat().st_size} bytes)",
        f"ABI: {abi}",
        "imports: " + (", ".join(f"{m}.{n}" for m, n in sorted(names)) or "none"),
        "entry functions: " + (", ".join(entries) or "none"),
        "name section: "
        + (
            "yes (function names in crash reports)"
            if _has_name_section(path)
            else "no (crash reports give function indexes)"
        ),
    ]
    if abi == KAFKA_CONNECT and entries:
        guest = _guest(module, path, function_name or entries[0])
        shape = guest.adapter_shape(readable_columns(guest))
        changes = [c for c in ("key", "value", "topic", "headers", "timestamp") if shape.modifies(c)]
        lines.append(
            f"fast path ({guest.function_name}): "
            + ("yes" if guest.fast_path_possible else "no, it imports a plugin's Python host function")
        )
        lines.append("  reads: " + (", ".join(sorted(shape.staged)) or "nothing"))
        lines.append("  may change: " + (", ".join(changes) or "nothing"))
    return "\n".join(lines)


def adapter_text(path: str | Path, function_name: str | None = None) -> str:
    """The adapter module (WAT) the fast path generates for the guest, every column it can read staged.

    Raises InspectError when the module is not a kafka-connect guest the fast path can run.
    """
    module = _compile(path)
    abi = _abi_name(module, path)
    if abi != KAFKA_CONNECT:
        raise InspectError(f"{path}: a {abi} guest has no kafka-connect adapter")
    entries = _entry_functions(module)
    if function_name is None:
        if len(entries) != 1:
            raise InspectError(f"{path}: name the entry function with --function (one of: {', '.join(entries)})")
        function_name = entries[0]
    guest = _guest(module, path, function_name)
    return adapter_wat(guest.adapter_shape(readable_columns(guest)))


def _abi_name(module: wasmtime.Module, path: str | Path) -> str:
    """The name of the registered ABI that claims ``module`` (or the default one)."""
    return detect_abi(module, registered_abis(), str(path)).name


def _compile(path: str | Path) -> wasmtime.Module:
    try:
        data = read_module(str(path), _MAX_BYTES, "")
        return runtime().compile(data)
    except ConfigError as exc:
        raise InspectError(exc.problems[0].reason) from exc
    except wasmtime.WasmtimeError as exc:
        raise InspectError(f"{path}: not a valid WebAssembly module: {error_cause(exc)}") from exc


def _guest(module: wasmtime.Module, path: str | Path, function_name: str) -> GuestModule:
    try:
        return inspect_guest(
            module, label=Path(path).name, function_name=function_name, plugin_functions={}, wasi=True, key_prefix=""
        )
    except ConfigError as exc:
        raise InspectError(exc.problems[0].reason) from exc


def _entry_functions(module: wasmtime.Module) -> list[str]:
    """Exports that can be a kafka-connect entry: no parameters, no result or an i64."""
    entries = []
    for export in module.exports:
        kind = export.type
        if (
            isinstance(kind, wasmtime.FuncType)
            and not kind.params
            and export.name not in _NOT_ENTRIES
            and [str(r) for r in kind.results] in ([], ["i64"])
        ):
            entries.append(export.name)
    return entries


def _has_name_section(path: str | Path) -> bool:
    """True when the module has a custom section called ``name``."""
    data = Path(path).read_bytes()
    if not data.startswith(b"\0asm"):  # the text format: its $names become the name section
        data = wasmtime.wat2wasm(data.decode("utf-8", "replace"))
    for section_id, payload in sections(data):
        if section_id == 0:
            name_length, at = read_uleb(payload, 0)
            if payload[at : at + name_length] == b"name":
                return True
    return False
