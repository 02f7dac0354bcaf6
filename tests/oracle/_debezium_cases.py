"""Generated cases for Debezium's own ExtractNewRecordState (the Debezium oracle).

A case is a pipeline case (the kind KafkaConnectOracle.java runs) whose chain is one
``io.debezium.transforms.ExtractNewRecordState`` and whose records are change events as a
Debezium connector writes them through JsonConverter: a ``*.Key`` struct key and a
``*.Envelope`` value (``before``/``after`` rows, a ``source`` block, an optional
``transaction`` block, ``op``, ``ts_ms``/``ts_us``/``ts_ns``), for every op (c, r, u, d,
t), and the connector's tombstones. Rows have optional fields with and without defaults and
nulls. Some cases read the values without schemas, or carry a value that is no envelope,
which Debezium passes unchanged. Configurations draw every key of Debezium 3.6.1's
ConfigDef, and the obsolete keys that files still carry.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from hypothesis import strategies as st

from tests.oracle._cases import JSON

PLUGIN = "ExtractNewRecordState (Debezium)"
TYPE = "io.debezium.transforms.ExtractNewRecordState"
RECORDS_PER_CASE = 8
#: The header that lists fields to drop, when drop.fields.header.name names it.
DROP_HEADER = "dropped.fields"
ROUTE_TOPICS = ("orders", "users", "", None)

MODES = ("drop", "tombstone", "rewrite", "rewrite-with-tombstone", "delete-to-tombstone")
#: add.fields / add.headers entries: envelope fields, source.* and transaction.* fields (bare and
#: qualified), the renaming form, and names no block has.
REFERENCES = (
    "op",
    "ts_ms",
    "ts_us",
    "ts_ns",
    "source.ts_ms",
    "table",
    "lsn",
    "db",
    "snapshot",
    "source.version",
    "source.connector:connector_name",
    "transaction.id",
    "id",
    "total_order",
    "data_collection_order",
    "op:operation",
    "source.ts_ms:event_ts",
    "table:origin",
    "nothing",
    "source.nothing",
)

# --- schemas ---------------------------------------------------------------------------------


def _field(field: str, type_: str, optional: bool, default: Any = None, **extra: Any) -> dict:
    schema = {"type": type_, "optional": optional, "field": field, **extra}
    if default is not None:
        schema["default"] = default
    return schema


#: Row columns: (field schema, strategy of a non-null value). ``id`` and ``sku`` are required.
COLUMNS = {
    "id": (_field("id", "int32", False), st.integers(1, 50)),
    "sku": (_field("sku", "string", False), st.sampled_from(["a-1", "b-2", "c-3"])),
    "name": (_field("name", "string", True), st.sampled_from(["ann", "bob", "", "é"])),
    "name_d": (_field("name", "string", True, "anon"), st.sampled_from(["ann", "bob"])),
    "qty": (_field("qty", "int64", True), st.integers(-5, 10**12)),
    "qty_d": (_field("qty", "int64", True, 0), st.integers(-5, 100)),
    "price": (_field("price", "double", True), st.sampled_from([0.5, 12.25, -1.0])),
    "active_d": (_field("active", "boolean", True, True), st.booleans()),
    "tbl": (_field("tbl", "string", True), st.sampled_from(ROUTE_TOPICS)),
    "at": (
        _field("at", "int64", True, name="io.debezium.time.Timestamp", version=1),
        st.integers(0, 1_800_000_000_000),
    ),
    "tags": (
        _field("tags", "array", True, items={"type": "string", "optional": True}),
        st.lists(st.sampled_from(["a", "b", None]), max_size=3),
    ),
    "geo": (
        _field(
            "geo",
            "struct",
            True,
            name="io.debezium.data.geometry.Point",
            fields=[_field("x", "double", False), _field("y", "double", False), _field("srid", "int32", True)],
        ),
        st.fixed_dictionaries(
            {"x": st.sampled_from([1.5, -2.0]), "y": st.just(3.25), "srid": st.sampled_from([None, 4326])}
        ),
    ),
}

SOURCE_SCHEMA = {
    "type": "struct",
    "name": "io.debezium.connector.postgresql.Source",
    "optional": False,
    "fields": [
        _field("version", "string", False),
        _field("connector", "string", False),
        _field("name", "string", False),
        _field("ts_ms", "int64", False),
        _field(
            "snapshot", "string", True, "false", name="io.debezium.data.Enum", parameters={"allowed": "true,last,false"}
        ),
        _field("db", "string", False),
        _field("table", "string", False),
        _field("lsn", "int64", True),
        _field("ts_us", "int64", True),
    ],
}
TRANSACTION_SCHEMA = {
    "type": "struct",
    "name": "event.block",
    "optional": True,
    "version": 1,
    "fields": [
        _field("id", "string", False),
        _field("total_order", "int64", False),
        _field("data_collection_order", "int64", False),
    ],
}


def _row_schema(table: str, columns: list[str]) -> dict:
    return {
        "type": "struct",
        "name": f"srv.inv.{table}.Value",
        "optional": True,
        "fields": [COLUMNS[c][0] for c in columns],
    }


def _envelope_schema(table: str, row: dict, stamps: tuple[str, ...]) -> dict:
    fields = [
        {**row, "field": "before"},
        {**row, "field": "after"},
        {**SOURCE_SCHEMA, "field": "source"},
        {**TRANSACTION_SCHEMA, "field": "transaction"},
        _field("op", "string", False),
        *(_field(stamp, "int64", True) for stamp in stamps),
    ]
    return {"type": "struct", "name": f"srv.inv.{table}.Envelope", "optional": False, "version": 2, "fields": fields}


def _key_schema(table: str, with_name: bool) -> dict:
    fields = [_field("id", "int32", False)] + ([_field("name", "string", True)] if with_name else [])
    return {"type": "struct", "name": f"srv.inv.{table}.Key", "optional": False, "fields": fields}


# --- tables and rows -------------------------------------------------------------------------


@st.composite
def table(draw) -> dict:
    """A table: its columns, key columns, envelope timestamps and schemas."""
    name = draw(st.sampled_from(["orders", "users"]))
    optional = draw(
        st.lists(
            st.sampled_from(["name", "name_d", "qty", "qty_d", "price", "active_d", "tbl", "at", "tags", "geo"]),
            unique=True,
        )
    )
    seen: set[str] = set()
    columns = ["id"] + (["sku"] if draw(st.booleans()) else [])
    for column in optional:  # name and name_d (qty, qty_d) are one column, with and without default
        field = COLUMNS[column][0]["field"]
        if field not in seen:
            seen.add(field)
            columns.append(column)
    stamps = tuple(s for s in ("ts_ms", "ts_us", "ts_ns") if s == "ts_ms" or draw(st.booleans()))
    key_has_name = "name" in seen  # an optional key field, for drop.fields.from.key
    row = _row_schema(name, columns)
    return {
        "name": name,
        "columns": columns,
        "stamps": stamps,
        "key_has_name": key_has_name,
        "row_schema": row,
        "envelope_schema": _envelope_schema(name, row, stamps),
        "key_schema": _key_schema(name, key_has_name),
    }


@st.composite
def row(draw, table: dict) -> dict:
    values = {}
    for column in table["columns"]:
        schema, values_of = COLUMNS[column]
        nullable = schema["optional"] and draw(st.integers(0, 3)) == 0
        values[schema["field"]] = None if nullable else draw(values_of)
    return values


@st.composite
def change_event(draw, table: dict) -> dict:
    """(key, value) payloads of one event: op c/r/u/d/t, or a tombstone (value None)."""
    kind = draw(st.sampled_from(["c", "r", "u", "u", "d", "d", "t", "tombstone"]))
    before = draw(row(table)) if kind in ("u", "d", "tombstone") else None
    after = draw(row(table)) if kind in ("c", "r", "u") else None
    like = after or before or draw(row(table))
    key = {"id": like["id"], **({"name": like.get("name")} if table["key_has_name"] else {})}
    if kind == "tombstone":
        return {"key": key, "value": None}
    transaction = (
        None
        if draw(st.booleans())
        else {"id": draw(st.sampled_from(["571:1", "572:9"])), "total_order": 3, "data_collection_order": 2}
    )
    value = {
        "before": before,
        "after": after,
        "source": {
            "version": "3.6.1.Final",
            "connector": "postgresql",
            "name": "srv",
            "ts_ms": draw(st.integers(1_700_000_000_000, 1_700_000_100_000)),
            "snapshot": draw(st.sampled_from(["true", "false", "last", None])),
            "db": "inv",
            "table": table["name"],
            "lsn": draw(st.one_of(st.none(), st.integers(1, 10**9))),
            "ts_us": None,
        },
        "transaction": transaction,
        "op": kind,
        **{stamp: draw(st.integers(1_700_000_000_000, 1_700_000_100_000)) for stamp in table["stamps"]},
    }
    return {"key": key, "value": value}


def _list_header(names: list[str]) -> list[str]:
    """A header holding a list, written as SimpleHeaderConverter writes one (so both sides write it back alike)."""
    return [DROP_HEADER, base64.b64encode(json.dumps(names, separators=(",", ":")).encode()).decode()]


def _b64(document: Any) -> str:
    return base64.b64encode(json.dumps(document).encode()).decode()


@st.composite
def record(draw, table: dict, with_schemas: bool, drop_list: list[str] | None) -> dict:
    event = draw(change_event(table))
    if with_schemas:
        key = {"schema": table["key_schema"], "payload": event["key"]}
        value = None if event["value"] is None else {"schema": table["envelope_schema"], "payload": event["value"]}
        if value is not None and draw(st.integers(0, 15)) == 0:  # a value that is no change event
            value = {"schema": {**table["row_schema"], "optional": False}, "payload": draw(row(table))}
    else:
        key, value = event["key"], event["value"]
    headers = [["h1", base64.b64encode(b"kept").decode()]] if draw(st.booleans()) else []
    if drop_list is not None and draw(st.integers(0, 4)) > 0:
        headers.append(_list_header(drop_list))
        if draw(st.integers(0, 3)) == 0:  # a second header of that name: Debezium reads the first
            headers.append(_list_header(["qty", "name"]))
    return {
        "topic": f"srv.inv.{table['name']}",
        "partition": draw(st.integers(0, 2)),
        "timestamp": draw(st.one_of(st.integers(1_600_000_000_000, 1_800_000_000_000), st.none())),
        "key": _b64(key),
        "value": None if value is None else _b64(value),
        "headers": headers,
    }


# --- configurations --------------------------------------------------------------------------


def _maybe(strategy):
    """A key's value, or None: the key is left out."""
    return st.one_of(st.none(), strategy)


def _listed(references: list[str]) -> str:
    return ",".join(references)


SETTINGS = st.fixed_dictionaries(
    {
        "add.fields": _maybe(st.lists(st.sampled_from(REFERENCES), max_size=4, unique=True).map(_listed)),
        "add.fields.prefix": _maybe(st.sampled_from(["__", "meta_", "_"])),
        "add.headers": _maybe(st.lists(st.sampled_from(REFERENCES), max_size=3, unique=True).map(_listed)),
        "add.headers.prefix": _maybe(st.sampled_from(["__", "dbz."])),
        "route.by.field": _maybe(st.sampled_from(["", "tbl", "name"])),
        "replace.null.with.default": _maybe(st.sampled_from(["true", "false"])),
        "drop.fields.header.name": _maybe(st.just(DROP_HEADER)),
        "drop.fields.from.key": _maybe(st.sampled_from(["true", "true", "false"])),
        "drop.fields.keep.schema.compatible": _maybe(st.sampled_from(["true", "false"])),
        # Keys Debezium 3.x removed, still in real files: 3.6.1's ConfigDef does not read them.
        "drop.tombstones": _maybe(st.sampled_from(["true", "false"])),
        "delete.handling.mode": _maybe(st.sampled_from(["none", "drop", "rewrite"])),
    }
).map(lambda settings: {k: v for k, v in settings.items() if v is not None})


#: What each case is sure to set, besides its mode (hypothesis alone draws too few of them):
#: keys whose values it draws.
FOCUSES = {
    "any": {},
    "routing": {"route.by.field": st.sampled_from(["tbl", "name"])},
    "dropping": {
        "drop.fields.header.name": st.just(DROP_HEADER),
        "drop.fields.from.key": st.sampled_from(["true", "false"]),
        "drop.fields.keep.schema.compatible": st.sampled_from(["true", "false"]),
    },
    "adding": {
        "add.fields": st.lists(st.sampled_from(REFERENCES), min_size=1, max_size=4, unique=True).map(_listed),
        "add.headers": st.lists(st.sampled_from(REFERENCES), min_size=1, max_size=3, unique=True).map(_listed),
    },
}


@st.composite
def case(draw, mode: str | None, focus: str = "any") -> dict:
    """A pipeline case: one ExtractNewRecordState over change events of one or two tables, with
    ``delete.tombstone.handling.mode`` set to ``mode`` (None: left out, so the default) and the
    keys of ``focus`` (one of :data:`FOCUSES`) set."""
    settings = draw(SETTINGS)
    settings.update({key: draw(values) for key, values in FOCUSES[focus].items()})
    if mode is not None:
        settings["delete.tombstone.handling.mode"] = mode
    with_schemas = draw(st.integers(0, 7)) > 0
    tables = draw(st.lists(table(), min_size=1, max_size=2))
    drop_list = (
        draw(
            st.lists(st.sampled_from(["name", "qty", "price", "id", "sku", "geo", "missing"]), min_size=1, unique=True)
        )
        if "drop.fields.header.name" in settings
        else None
    )
    rows = [draw(record(draw(st.sampled_from(tables)), with_schemas, drop_list)) for _ in range(RECORDS_PER_CASE)]
    nulls_as_nulls = draw(st.booleans())  # nulls reach the transform as nulls, not as the fields' defaults
    return pipeline_case(PLUGIN, TYPE, settings, rows, with_schemas, alias="unwrap", nulls_as_nulls=nulls_as_nulls)


def pipeline_case(
    plugin: str, type_: str, settings: dict, records: list[dict], with_schemas: bool, alias: str = "t",
    nulls_as_nulls: bool = True,
) -> dict:  # fmt: skip
    """A pipeline case: JsonConverter (with or without schemas) around one transform ``type_`` named
    ``alias`` with ``settings`` (None values left out); ``nulls_as_nulls``: JsonConverter hands the
    transform a null as null, not as its field's default."""
    enabled = "true" if with_schemas else "false"
    config = {
        "key.converter": JSON,
        "key.converter.schemas.enable": enabled,
        "value.converter": JSON,
        "value.converter.schemas.enable": enabled,
        "transforms": alias,
        f"transforms.{alias}.type": type_,
        **{f"transforms.{alias}.{k}": v for k, v in settings.items() if v is not None},
    }
    if nulls_as_nulls:
        config["value.converter.replace.null.with.default"] = "false"
    return {
        "kind": "pipeline",
        "plugin": plugin,
        "config": config,
        "records": [{**r, "offset": offset} for offset, r in enumerate(records)],
    }
