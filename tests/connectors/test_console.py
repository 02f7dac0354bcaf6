"""The console sink prints one line per record and still consumes every record."""

import io

import pytest

from connectors.console import ConsoleSink
from smt.plugin import PluginContext
from smt.record import KAFKA_ROW_SCHEMA_DDL

pytestmark = pytest.mark.spark

ROWS = [
    (b"user-1", b'{"amount": 3}', "orders", 0, 41, None, 0, [{"key": "trace", "value": b"abc"}]),
    (None, b"\xff raw", "orders", 1, 42, None, 0, []),
    (b"k", None, "orders", 1, 43, None, 0, None),
]

GOLDEN_LINES = [
    'orders[0]@41 key=user-1 value={"amount": 3} headers=[trace=abc]',
    "orders[1]@42 key=null value=\\xff raw",
    "orders[1]@43 key=k value=null",
]


def console(**configs):
    out = io.StringIO()
    sink = ConsoleSink(out)
    sink.configure({k.replace("__", "."): v for k, v in configs.items()}, PluginContext(prefix="sink."))
    return sink, out


def test_records_print_as_golden_lines(spark):
    sink, out = console()
    sink.write(spark.createDataFrame(ROWS, KAFKA_ROW_SCHEMA_DDL).coalesce(1))
    assert out.getvalue().splitlines() == GOLDEN_LINES


def test_only_the_first_records_print_the_rest_are_counted(spark):
    sink, out = console(max__records="1", print__headers="false")
    sink.write(spark.createDataFrame(ROWS, KAFKA_ROW_SCHEMA_DDL).coalesce(1), batch_id=4)
    assert out.getvalue().splitlines() == [
        "--- micro-batch 4 ---",
        'orders[0]@41 key=user-1 value={"amount": 3}',
        "... 2 more record(s) not shown",
    ]
