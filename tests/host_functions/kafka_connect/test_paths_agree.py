"""Property: the fast path and the reference path give identical results.

For every guest (together they call every host function the fast path
serves) and any batch, both paths output the same records with the same
origins, and fail the same rows with the same messages.
"""

from __future__ import annotations

import base64
import json

import pytest
import wasmtime
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from host_functions import WasmTransform
from smt.batch import RecordBatch
from smt.plugin import PluginContext
from smt.record import Record
from tests.host_functions import wat_guests as g
from tests.host_functions.conftest import CollectErrors

GUESTS = {
    "swap": (g.SWAP, {}),
    "headers": (g.HEADERS, {}),
    "route": (g.ROUTE_TIMESTAMP, {}),
    "filter_fan_out": (g.FILTER_FAN_OUT, {"config.suffix": "-s"}),
    "check": (g.ERROR_ON_ODD, {}),
    "to_upper": (g.TO_UPPER, {}),
    "missing": (g.MISSING_CONFIG, {"config.missing.not": "x"}),
    "log_it": (g.LOGGER, {}),
    "to_json": (g.RECORD_TO_VALUE, {}),
    "replace": (g.SET_RECORD, {}),
    "value_as_record": (g.VALUE_AS_RECORD, {}),
    "round_trip": (g.RECORD_ROUND_TRIP, {}),
}


@pytest.fixture(scope="module")
def transform_pairs(tmp_path_factory):
    pairs = {}
    for function, (source, config) in GUESTS.items():
        path = tmp_path_factory.mktemp("guests") / f"{function}.wasm"
        path.write_bytes(wasmtime.wat2wasm(source))
        pair = []
        for which in ("fast", "reference"):
            transform = WasmTransform()
            transform.configure(
                {"module.path": str(path), "function.name": function, "path": which, **config},
                PluginContext("prop", "transforms.prop."),
            )
            assert transform.path == which
            pair.append(transform)
        pairs[function] = pair
    return pairs


small_bytes = st.binary(max_size=24)


def _document(members: list[tuple[tuple[str, str], str, str]]) -> bytes:
    return (
        "{"
        + ",".join(
            f"{before}{json.dumps(key)}{after}:{before}{value}{after}" for (key, value), before, after in members
        )
        + "}"
    ).encode()


_space = st.sampled_from(["", " ", "\n\t", "\r "])
#: JSON values: base64 (canonical, odd, broken), null, strings with escapes, other types
_token = st.one_of(
    st.binary(max_size=8).map(lambda data: json.dumps(base64.b64encode(data).decode())),
    st.sampled_from(['"YQ"', '"YQ="', '"Y==="', '"=YQ="', '"YR=="', '"YW!j"', '"YWJj=="', '""']),
    st.sampled_from(["null", "null", "5", "true", "[]", "{}", '"a\\u00e9"', '"t\\"q"', '"caf\u00e9"']),
)
_header_names = st.sampled_from(["h", "x", "h", 'q"', "\u00e9", "a b"]).map(
    lambda name: json.dumps(name, ensure_ascii=False)
)
_headers = st.one_of(
    st.lists(st.tuples(_header_names, _token), max_size=3).map(
        lambda items: "{" + ",".join(f"{name}:{value}" for name, value in items) + "}"
    ),
    st.sampled_from(["null", '""', '"x"', "[]"]),
)
_member = st.one_of(
    st.tuples(st.just("headers"), _headers), st.tuples(st.sampled_from(["topic", "key", "value", "other"]), _token)
)
#: set_record documents, good and bad (value_as_record reads the value as one): the adapter parses
#: the plain ones, Python the rest; both must end like the reference path
record_documents = st.one_of(
    st.tuples(_member, _space, _space).map(lambda member: _document([member])),
    st.lists(st.tuples(_member, _space, _space), max_size=5).map(_document),
    st.sampled_from([b"[]", b"not json", b'{"key":"AA=="} x', b' {"key":"AA==",}', b"{", b"\xef\xbb\xbf{}"]),
)
records = st.builds(
    Record,
    # JSON escapes quotes, backslashes and control characters; non-ASCII goes through Python
    topic=st.text(alphabet='abcxyz-._/"\\\n\t\r\x08\x0c\x01\x7f\u00e9\U0001f600', min_size=1, max_size=12),
    partition=st.none() | st.integers(0, 1000),
    offset=st.none() | st.integers(0, 10**12),
    timestamp=st.none() | st.integers(0, 10**12),
    key=st.none() | small_bytes,
    value=st.none() | small_bytes | st.sampled_from([b"b", b"abc", b"topic-a", b"\xff\xfe"]) | record_documents,
    headers=st.lists(
        st.tuples(st.sampled_from(["h", "x", "copy", 'q"\\\x1f', '\u00e9"/']), st.none() | small_bytes), max_size=4
    ).map(tuple),
)


def _outcome(transform, batch_records):
    errors = CollectErrors()
    out = transform.apply_batch(RecordBatch.from_records(batch_records), errors)
    return out.records(), list(out.origin), [(row, str(exc)) for row, exc in errors.failures]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(function=st.sampled_from(sorted(GUESTS)), batch=st.lists(records, max_size=12))
def test_fast_and_reference_paths_agree(transform_pairs, function, batch):
    fast, reference = transform_pairs[function]
    assert _outcome(fast, batch) == _outcome(reference, batch)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(documents=st.lists(record_documents, min_size=1, max_size=8))
def test_paths_agree_on_set_record_documents(transform_pairs, documents):
    """set_record of documents the adapter parses itself and of ones it leaves to Python."""
    batch = [
        Record(topic="t", partition=0, offset=0, timestamp=0, key=b"k", value=document, headers=(("old", b"o"),))
        for document in documents
    ]
    fast, reference = transform_pairs["value_as_record"]
    assert _outcome(fast, batch) == _outcome(reference, batch)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batch=st.lists(records, min_size=1, max_size=8))
def test_paths_agree_on_arrow_input(transform_pairs, batch):
    """Batches straight from Arrow (as Spark hands them over) take the zero-copy staging."""
    arrow = RecordBatch.from_records(batch).to_arrow()
    for function in ("headers", "route", "filter_fan_out", "round_trip", "to_json"):
        fast, reference = transform_pairs[function]
        fast_errors, reference_errors = CollectErrors(), CollectErrors()
        fast_out = fast.apply_batch(RecordBatch.from_arrow(arrow), fast_errors)
        reference_out = reference.apply_batch(RecordBatch.from_arrow(arrow), reference_errors)
        assert fast_out.records() == reference_out.records()
        assert fast_out.origin == reference_out.origin
        assert fast_errors.rows == reference_errors.rows


def test_paths_agree_when_a_batch_is_staged_in_several_chunks(tmp_path):
    """A small memory limit splits the batch into chunks: sliced Arrow columns, several runs."""
    path = tmp_path / "headers.wasm"
    path.write_bytes(wasmtime.wat2wasm(g.HEADERS))
    records = [
        Record(
            topic=f"t{i % 3}",
            key=b"k%d" % i,
            value=bytes([65 + i % 26]) * 2000,
            headers=(("h", b"%d" % i * 2000), ("x", None)) if i % 4 else (),
        )
        for i in range(60)
    ]
    arrow = RecordBatch.from_records(records).to_arrow()
    outcomes = []
    for which in ("fast", "reference"):
        transform = WasmTransform()
        transform.configure(
            {"module.path": str(path), "function.name": "headers", "path": which, "memory.max.bytes": str(128 * 1024)},
            PluginContext("chunks", "transforms.chunks."),
        )
        errors = CollectErrors()
        out = transform.apply_batch(RecordBatch.from_arrow(arrow), errors)
        outcomes.append((out.records(), out.origin, errors.failures))
        if which == "fast":  # the columns the guest read, staged, take several chunks
            staged = transform._path._inputs(RecordBatch.from_arrow(arrow), {})
            assert len(transform._path._chunks(staged, 0, 60)) > 1
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0][5].headers == (("h", b"5" * 2000), ("x", None), ("copy", b"5" * 2000), ("topic", b"t2"))
    assert outcomes[0][0][4].headers == (("copy", b""), ("topic", b"t1"))
