"""The reference path: every host function is a Python call.

Slow (several Python<->Wasm crossings per record) but simple: it is the
oracle the fast path is tested against, it serves plugin host functions,
and it is the one to read when debugging.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Mapping

import wasmtime

from host_functions.kafka_connect.abi import BY_NAME, ERROR_BIT, pack, unpack
from host_functions.kafka_connect.guest import GuestModule
from host_functions.kafka_connect.host_function import HostCall, HostFunction
from host_functions.kafka_connect.layout import SET_HEADERS, SET_KEY, SET_TIMESTAMP, SET_TOPIC, SET_VALUE
from host_functions.kafka_connect.record_json import parse_record_json, record_json, utf8
from host_functions.runtime.engine import WasmRuntime
from host_functions.runtime.memory import GuestMemory
from host_functions.runtime.record_bytes import Converters
from host_functions.runtime.retry import RetryPolicy
from host_functions.runtime.sandbox import (
    Failure,
    GuestReported,
    Settings,
    StartFailure,
    describe_trap,
    guest_memory_at_limit,
    log_function,
    new_store,
)
from host_functions.runtime.watchdog import interrupted
from smt.batch import RecordBatch
from smt.record import Record
from smt.transform import ErrorSink

__all__ = ["RecordState", "ReferenceInstance", "ReferencePath", "signed_i32"]


#: A record part not converted yet: as in the Kafka Connect transformer, the converters run only
#: on what the guest reads (a value the guest never reads may be anything).
UNREAD = object()


@dataclasses.dataclass
class RecordState:
    """A record as the guest sees it: bytes after the transform's converters.

    ``key``, ``value`` and ``headers`` start :data:`UNREAD`; :meth:`read`
    converts them (``convert(part)``) when the guest first asks.
    """

    key: Any
    value: Any
    topic: str
    headers: Any
    timestamp: int | None
    partition: int | None
    offset: int | None
    convert: Callable[[str], Any]
    mask: int = 0
    dropped: bool = False

    def read(self, part: str) -> Any:
        data = getattr(self, part)
        if data is UNREAD:
            data = self.convert(part)
            setattr(self, part, data)
        return data

    def snapshot(self) -> "RecordState":
        return dataclasses.replace(self, headers=self.headers if self.headers is UNREAD else list(self.headers))


class _NoRecordWhileStarting:
    """The record state while the guest is instantiated: a host function reading or writing it is a guest error."""

    def __init__(self, function_name: str) -> None:
        object.__setattr__(self, "_function_name", function_name)

    def _refuse(self) -> Failure:
        return Failure(
            "a host function that reads or writes the record (get_value, set_value, get_record, ...) was called "
            f"from the guest's start function, and there is no record until '{self._function_name}' is called"
        )

    def __getattr__(self, name: str) -> Any:
        raise self._refuse()

    def __setattr__(self, name: str, value: Any) -> None:
        raise self._refuse()


def signed_i32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


class ReferenceInstance:
    """One guest instance with Python host functions; replaced after a trap."""

    def __init__(
        self,
        engine: wasmtime.Engine,
        guest: GuestModule,
        settings: Settings,
        plugin_functions: Mapping[str, HostFunction],
    ) -> None:
        self.settings = settings
        self.guest = guest
        self.store = new_store(engine, settings)
        # No record until the first call of function.name: the start function may not touch one.
        self.state: RecordState | Any = _NoRecordWhileStarting(settings.function_name)
        self.outputs: list[RecordState] = []
        self._config = {k.encode(): v.encode() for k, v in settings.guest_config.items()}
        linker = wasmtime.Linker(engine)
        if settings.wasi:
            linker.define_wasi()
        host_call = HostCall(self)
        for name in guest.imports | guest.plugin_imports:
            if name in BY_NAME:
                spec, impl = BY_NAME[name], self._host_impl(name)
            else:
                spec = plugin_functions[name]
                impl = _bind(spec.call, host_call)
            ty = wasmtime.FuncType([_VAL[p] for p in spec.params], [_VAL[r] for r in spec.results])
            linker.define_func("env", name, ty, impl)
        instance = linker.instantiate(self.store, guest.module)
        self.exports = exports = instance.exports(self.store)
        self.memory = exports["memory"]
        self.guest_view = GuestMemory(self.memory, self.store)
        self._alloc = exports["alloc"]
        self._dealloc = exports["dealloc"] if guest.has_dealloc else None
        self._entry = exports[guest.function_name]

    # --- guest memory -------------------------------------------------------

    def read(self, ptr: int, length: int) -> bytes:
        return self.guest_view.read(ptr, length)

    def give(self, data: bytes | None) -> int:
        """Copy ``data`` into a fresh guest buffer (guest's ``alloc``); the packed result."""
        if data is None:
            return 0
        if len(data) > self.settings.memory_max_bytes:
            raise Failure(
                f"{len(data)} bytes do not fit in guest memory: memory.max.bytes={self.settings.memory_max_bytes}"
            )
        ptr = self._alloc(self.store, len(data)) & 0xFFFFFFFF
        size = self.guest_view.size
        if ptr + len(data) > size:
            raise Failure(
                f"bad pointer: alloc returned {ptr}, which cannot hold {len(data)} bytes "
                f"in guest memory of {size} bytes"
            )
        self.guest_view.write(ptr, data)
        return pack(ptr, len(data))

    # --- running ------------------------------------------------------------

    def run(self, state: RecordState) -> list[RecordState]:
        """Run the guest on one record; the records it outputs (none when dropped).

        Raises :class:`Failure` for a guest-reported error or a bad pointer,
        and wasmtime's ``Trap`` for a trap (including a timeout interrupt).
        """
        self.state, self.outputs = state, []
        result = self._entry(self.store)
        if self.guest.entry_returns_i64:
            ptr, length = unpack(result)
            if length & ERROR_BIT:
                message = self.read(ptr, length & ~ERROR_BIT).decode("utf-8", "replace")
                self._free(ptr, length)
                raise GuestReported(f"the guest reported an error: {message}")
            self._free(ptr, length)
        if not state.dropped:
            self._output(state)
        return self.outputs

    def _output(self, state: RecordState) -> None:
        if len(self.outputs) >= self.settings.max_outputs_per_record:
            raise Failure(self.settings.too_many_outputs())
        self.outputs.append(state.snapshot())

    def _free(self, ptr: int, length: int) -> None:
        # Like the Java transformer: the returned buffer goes back to dealloc, len bits as returned.
        if self._dealloc is not None:
            self._dealloc(self.store, signed_i32(ptr), signed_i32(length))

    # --- host functions -------------------------------------------------------

    def _host_impl(self, name: str) -> Callable[..., Any]:
        if name == "log":
            return log_function(self.settings, self.read)
        return getattr(self, f"_{name}")

    def _get_key(self) -> int:
        return self.give(self.state.read("key"))

    def _set_key(self, ptr: int, length: int) -> None:
        self.state.key = self.read(ptr, length)
        self.state.mask |= SET_KEY

    def _get_value(self) -> int:
        return self.give(self.state.read("value"))

    def _set_value(self, ptr: int, length: int) -> None:
        self.state.value = self.read(ptr, length)
        self.state.mask |= SET_VALUE

    def _get_topic(self) -> int:
        return self.give(self.state.topic.encode("utf-8"))

    def _set_topic(self, ptr: int, length: int) -> None:
        self.state.topic = utf8(self.read(ptr, length), "set_topic: the topic")
        self.state.mask |= SET_TOPIC

    def _get_header(self, ptr: int, length: int) -> int:
        name = self.read(ptr, length)
        for header_name, data in reversed(self.state.read("headers")):
            if header_name.encode("utf-8") == name:
                return self.give(data)
        return 0

    def _set_header(self, name_ptr: int, name_len: int, data_ptr: int, data_len: int) -> None:
        name = utf8(self.read(name_ptr, name_len), "set_header: the header name")
        self.state.read("headers").append((name, self.read(data_ptr, data_len)))
        self.state.mask |= SET_HEADERS

    def _get_record(self) -> int:
        state = self.state
        return self.give(record_json(state.topic, state.read("key"), state.read("value"), state.read("headers")))

    def _set_record(self, ptr: int, length: int) -> None:
        topic, key, value, headers = parse_record_json(self.read(ptr, length))
        state = self.state
        state.headers, state.key, state.value = headers, key, value
        if topic is not None:
            state.topic = topic
        state.mask |= SET_KEY | SET_VALUE | SET_TOPIC | SET_HEADERS

    def _get_timestamp(self) -> int:
        return -1 if self.state.timestamp is None else self.state.timestamp

    def _set_timestamp(self, millis: int) -> None:
        self.state.timestamp = None if millis == -1 else millis
        self.state.mask |= SET_TIMESTAMP

    def _get_partition(self) -> int:
        return -1 if self.state.partition is None else self.state.partition

    def _get_offset(self) -> int:
        return -1 if self.state.offset is None else self.state.offset

    def _get_config(self, ptr: int, length: int) -> int:
        value = self._config.get(self.read(ptr, length))
        return 0 if value is None else self.give(value)

    def _drop_record(self) -> None:
        self.state.dropped = True

    def _emit_record(self) -> None:
        self._output(self.state)


_VAL = {"i32": wasmtime.ValType.i32(), "i64": wasmtime.ValType.i64()}


def _bind(call: Callable[..., Any], host_call: HostCall) -> Callable[..., Any]:
    def bound(*args: Any) -> Any:
        return call(host_call, *args)

    return bound


class ReferencePath:
    """One Python-served guest call per record."""

    def __init__(
        self,
        rt: WasmRuntime,
        guest: GuestModule,
        settings: Settings,
        converters: Converters,
        plugin_functions: Mapping[str, HostFunction],
    ) -> None:
        self.rt, self.guest, self.settings, self.converters = rt, guest, settings, converters
        self.plugin_functions = plugin_functions
        self._instance: ReferenceInstance | None = None
        self._seq = 0

    def instance(self) -> ReferenceInstance:
        """The current instance, created (under the time limit) when there is none; raises StartFailure."""
        if self._instance is None:
            self._instance = self.rt.start(
                self.settings,
                lambda: ReferenceInstance(self.rt.engine, self.guest, self.settings, self.plugin_functions),
            )
        return self._instance

    def apply_batch(self, batch: RecordBatch, errors: ErrorSink) -> RecordBatch:
        out = batch.builder()
        records = batch.records()
        output_bytes = 0
        for row, record in enumerate(records):
            try:
                state = self._state(record)
                outputs = self._run(state, row)
                output_bytes += sum(_nbytes(output) for output in outputs)
                if output_bytes > self.settings.max_output_bytes_per_batch:
                    output_bytes -= sum(_nbytes(output) for output in outputs)
                    raise Failure(self.settings.batch_outputs_too_big())
                results = [self._record(record, output) for output in outputs]
            except StartFailure as failure:  # no instance: nothing of this batch can run
                for rest, unrun in enumerate(records[row:], start=row):
                    errors.fail(rest, self.settings.error(failure.cause, rest, unrun.partition, unrun.offset))
                break
            except Failure as failure:
                errors.fail(row, self.settings.error(failure.cause, row, record.partition, record.offset))
                continue
            for result in results:
                out.append(row, result)
        return out.build()

    def _run(self, state: RecordState, row: int | None = None) -> list[RecordState]:
        policy = RetryPolicy()
        while True:
            instance = self.instance()
            self._seq += 1
            with self.rt.watchdog.watch(lambda: self._seq, self.settings.timeout_ms / 1000) as watch:
                try:
                    instance.store.set_epoch_deadline(1)
                    return instance.run(state.snapshot())
                except GuestReported:
                    raise
                except (wasmtime.Trap, wasmtime.WasmtimeError, Failure) as exc:
                    self._instance = None  # never reuse an instance that trapped
                    self._retry_or_raise(instance, exc, watch.fired_at is not None, row, policy)

    def _retry_or_raise(
        self, instance: ReferenceInstance, exc: BaseException, fired: bool, row: int | None, policy: RetryPolicy
    ) -> None:
        """Returns when the record runs again on a fresh instance (see :class:`RetryPolicy`), else raises
        the record's :class:`Failure`; ``fired``: this call's watch fired (it timed out)."""
        timed_out = interrupted(exc) and fired
        memory_full = guest_memory_at_limit(instance.memory, instance.store, self.settings)
        if memory_full and not isinstance(exc, Failure) and policy.retry_out_of_memory(row):
            self.settings.note_out_of_memory(memory_full, row)
            return
        raise Failure(describe_trap(exc, timed_out=timed_out, memory_full=memory_full, settings=self.settings)) from exc

    def _state(self, record: Record) -> RecordState:
        c = self.converters
        topic = record.topic

        def convert(part: str) -> Any:
            if part == "key":
                return _convert(lambda: c.key.from_connect_data(topic, record.key_schema, record.key), "key.converter")
            if part == "value":
                return _convert(
                    lambda: c.value.from_connect_data(topic, record.value_schema, record.value), "value.converter"
                )
            return [
                (name, _convert(lambda: c.header.from_connect_header(topic, name, None, value), "header.converter"))  # noqa: B023 - called before the loop moves on
                for name, value in record.headers
            ]

        return RecordState(
            key=UNREAD,
            value=UNREAD,
            topic=topic,
            headers=UNREAD,
            timestamp=record.timestamp,
            partition=record.partition,
            offset=record.offset,
            convert=convert,
        )

    def _record(self, record: Record, state: RecordState) -> Record:
        c, topic, changes = self.converters, state.topic, {}
        if state.mask & SET_KEY:
            changes["key_schema"], changes["key"] = _convert(
                lambda: c.key.to_connect_data(topic, state.key), "key.converter"
            )
        if state.mask & SET_VALUE:
            changes["value_schema"], changes["value"] = _convert(
                lambda: c.value.to_connect_data(topic, state.value), "value.converter"
            )
        if state.mask & SET_HEADERS:
            changes["headers"] = tuple(
                (name, _convert(lambda: c.header.to_connect_header(topic, name, data), "header.converter")[1])  # noqa: B023 - called before the loop moves on
                for name, data in state.headers
            )
        return record.replace(topic=topic, timestamp=state.timestamp, **changes)


def _nbytes(state: RecordState) -> int:
    """The bytes of an output's key, value, topic and headers (parts never read count as nothing)."""
    parts = [state.key, state.value, state.topic.encode()]
    if state.headers is not UNREAD:
        parts += [name.encode() for name, _ in state.headers] + [data for _, data in state.headers]
    return sum(len(part) for part in parts if isinstance(part, (bytes, bytearray)))


def _convert(work, converter_key: str):
    try:
        return work()
    except Exception as exc:  # a converter failure fails this record only
        raise Failure(f"{converter_key} failed: {type(exc).__name__}: {exc}") from exc
