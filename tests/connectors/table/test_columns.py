"""Record values into typed rows: what each column accepts, and the error naming the field otherwise."""

import datetime as dt
import decimal
import pickle

import pyarrow as pa
import pytest

from connectors.table.columns import ColumnLayout
from connectors.table.ddl import parse_columns
from smt.data import Decimal, SchemaBuilder, Struct, Timestamp

UTC = dt.timezone.utc
LAYOUT = ColumnLayout(
    parse_columns(
        "id bigint NOT NULL, amount decimal(10,2), at timestamp, day date, ok boolean, name string, raw binary, "
        "ratio double, tags array<string>, counts map<string,int>, address struct<city:string>"
    )
)


def test_schemaless_json_values_fill_their_columns():
    rows, errors = LAYOUT.rows(
        [
            {
                "id": 7,
                "amount": 12.5,
                "at": 1700000000123,
                "day": "2024-02-29",
                "ok": True,
                "name": "Ada",
                "raw": b"\x00",
                "ratio": 1,
                "tags": ["a", None],
                "counts": {"x": 1},
                "address": {"city": "Delft"},
            },
            {"id": 8, "at": "2024-01-01T10:00:00+01:00", "day": 19000},
        ]
    )
    assert errors == []
    assert rows[0] == {
        "id": 7,
        "amount": decimal.Decimal("12.50"),
        "at": dt.datetime(2023, 11, 14, 22, 13, 20, 123000, tzinfo=UTC),
        "day": dt.date(2024, 2, 29),
        "ok": True,
        "name": "Ada",
        "raw": b"\x00",
        "ratio": 1.0,
        "tags": ["a", None],
        "counts": [("x", 1)],
        "address": {"city": "Delft"},
    }
    assert rows[1]["at"] == dt.datetime(2024, 1, 1, 9, 0, tzinfo=UTC)
    assert rows[1]["day"] == dt.date(2022, 1, 8)
    table = pa.Table.from_batches([pa.RecordBatch.from_struct_array(LAYOUT.arrow(rows))])
    assert table.column("amount").to_pylist() == [decimal.Decimal("12.50"), None]
    assert table.schema.field("at").type == pa.timestamp("us", tz="UTC")


def test_connect_structs_fill_their_columns_with_defaults_applied():
    schema = (
        SchemaBuilder.struct()
        .field("id", SchemaBuilder.int64().build())
        .field("amount", Decimal.builder(2).optional().build())
        .field("at", Timestamp.builder().optional().build())
        .field("name", SchemaBuilder.string().optional().default_value("unknown").build())
        .build()
    )
    value = Struct(schema).put("id", 1).put("amount", decimal.Decimal("3.10"))
    value.put("at", dt.datetime(2024, 1, 1, tzinfo=UTC))
    rows, errors = LAYOUT.rows([value])
    assert errors == []
    assert rows[0]["name"] == "unknown" and rows[0]["amount"] == decimal.Decimal("3.10")
    assert rows[0]["tags"] is None


MISFITS = [
    ({"id": "7"}, "field 'id': expected bigint, found str '7'"),
    ({"id": True}, "field 'id': expected bigint, found bool True"),
    ({"id": 2**63}, "field 'id': 9223372036854775808 is out of range for bigint"),
    ({"name": "x"}, "field 'id': is required \\(NOT NULL\\) but missing or null"),
    ({"id": 1, "amount": 1.234}, "field 'amount': 1.234 has more than 2 decimal places"),
    ({"id": 1, "amount": 123456789}, r"field 'amount': 123456789 does not fit decimal\(10,2\)"),
    ({"id": 1, "amount": "1.5"}, r"field 'amount': expected decimal\(10,2\), found str '1.5'"),
    ({"id": 1, "at": "yesterday"}, "field 'at': 'yesterday' is not an ISO-8601 timestamp"),
    ({"id": 1, "day": "2024-02-30"}, r"field 'day': '2024-02-30' is not a date \(YYYY-MM-DD\)"),
    ({"id": 1, "ok": 1}, "field 'ok': expected boolean, found int 1"),
    ({"id": 1, "raw": "AA=="}, "field 'raw': expected bytes, found str 'AA=='"),
    ({"id": 1, "tags": "a"}, "field 'tags': expected an array, found str 'a'"),
    ({"id": 1, "tags": [1]}, r"field 'tags\[\]': expected string, found int 1"),
    ({"id": 1, "counts": {"x": "1"}}, r"field 'counts\{value\}': expected int, found str '1'"),
    ({"id": 1, "address": {"city": 5}}, "field 'address.city': expected string, found int 5"),
    ({"id": 1, "address": {"town": "x"}}, "field 'address.town': is not a column of the table"),
    ({"id": 1, "email": "a@b"}, "field 'email': is not a column of the table"),
    ("text", "field '\\(value\\)': expected a struct, found str 'text'"),
    (None, r"the value: a null value \(tombstone\) has no columns to write"),
]


@pytest.mark.parametrize(("value", "message"), MISFITS, ids=[m for _, m in MISFITS])
def test_a_value_that_does_not_fit_is_named_with_its_field(value, message):
    rows, errors = LAYOUT.rows([{"id": 1}, value])
    assert rows[1] is None and [row for row, _ in errors] == [1]
    with pytest.raises(ValueError, match=f"^{message}$"):
        raise errors[0][1]


def test_a_table_that_may_grow_leaves_unknown_fields_out():
    layout = ColumnLayout(parse_columns("id bigint"), strict=False)
    assert layout.rows([{"id": 1, "email": "a@b"}]) == ([{"id": 1}], [])


def test_the_layout_travels_to_executors_pickled():
    copy = pickle.loads(pickle.dumps(LAYOUT))
    assert copy.columns == LAYOUT.columns
    assert copy.rows([{"id": 1}])[1] == []
