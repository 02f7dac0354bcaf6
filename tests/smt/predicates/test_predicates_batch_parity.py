"""Every built-in predicate with a batch path of its own agrees with ``test``, on generated records."""

import pytest
from hypothesis import given

from smt.batch import RecordBatch
from tests.smt.batch_parity import BATCHES, GENERATED, configure_built_in, own_batch_path

PREDICATE_CASES = [
    ("TopicNameMatches", {"pattern": "orders.*"}),
    ("HasHeaderKey", {"name": "h"}),
    ("RecordIsTombstone", {}),
]


def test_every_built_in_predicate_with_a_batch_path_has_a_case():
    assert own_batch_path("predicate") == {name for name, _ in PREDICATE_CASES}


@pytest.mark.parametrize("name, props", PREDICATE_CASES, ids=lambda v: v if isinstance(v, str) else "")
@GENERATED
@given(records=BATCHES)
def test_test_batch_equals_test_on_generated_records(name, props, records):
    predicate = configure_built_in("predicate", name, props)
    assert predicate.test_batch(RecordBatch.from_records(records)) == [predicate.test(r) for r in records]
