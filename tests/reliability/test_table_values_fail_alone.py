"""A value a table cannot hold fails alone, at TASK_PUT; the run writes every other record.

A Connect ``Decimal`` with more digits than its declared precision used to fail the whole Parquet
write (Spark's NUMERIC_VALUE_OUT_OF_RANGE): the 1,000 good records of the run were not written.
Read back with pyarrow, an independent reader.
"""

from __future__ import annotations

import base64
import decimal
import json

import pyarrow.parquet as pq
import pytest

from tests.reliability.conftest import assert_accounted, context_header

pytestmark = pytest.mark.spark

AMOUNT = {"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "version": 1, "optional": True,
          "parameters": {"scale": "2", "connect.decimal.precision": "10"}, "field": "amount"}  # fmt: skip
SCHEMA = {"type": "struct", "fields": [{"type": "int64", "field": "id"}, AMOUNT]}


def _line(ident: int, amount: str) -> str:
    unscaled = int(decimal.Decimal(amount).scaleb(2))
    raw = unscaled.to_bytes((unscaled.bit_length() + 8) // 8, "big", signed=True)
    return json.dumps({"schema": SCHEMA, "payload": {"id": ident, "amount": base64.b64encode(raw).decode()}})


@pytest.mark.parametrize("too_big", ["123456789012.34", "100000000.00", "-100000000.00"])
def test_a_decimal_past_its_precision_is_dead_lettered_alone_and_the_rest_is_written(probe, spark, too_big):
    good = [_line(n, f"{n}.25") for n in range(1000)] + [_line(1000, "99999999.99"), _line(1001, "-99999999.99")]
    probe.input("orders.txt", "\n".join(good[:500] + [_line(9999, too_big)] + good[500:]) + "\n")
    pipeline = probe.pipeline(
        "source.path=in\nsource.format=text\nvalue.converter=json\n"
        "sink=table\nsink.format=parquet\nsink.path=table\n"
        "errors.tolerance=all\nerrors.deadletterqueue.path=dlq\nerrors.deadletterqueue.context.headers.enable=true\n"
    )
    outcome = probe.run(pipeline)
    assert_accounted(outcome, written_lines=len(good), dead_letters=1)
    table = pq.read_table(probe.root / "table")
    assert sorted(table.column("id").to_pylist()) == list(range(1002))
    assert max(table.column("amount").to_pylist()) == decimal.Decimal("99999999.99")
    [letter] = probe.dead_letters()
    assert context_header(letter, "stage") == "TASK_PUT"
    assert f"field 'amount': {too_big} has more digits than DECIMAL(10,2) holds" in context_header(
        letter, "exception.message"
    )
