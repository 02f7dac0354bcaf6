"""A run of map transforms copies each value at most once, and never changes values it does not own."""

import copy

import pytest

from smt.batch import RecordBatch
from smt.chain import ChainErrors as ChainErrorsForTest
from smt.chain import ChainStage, TransformChain
from smt.errors import DataError
from smt.predicates.topic_name_matches import TopicNameMatches
from smt.transform import Transform
from smt.transforms.insert_field import InsertFieldValue
from smt.transforms.mask_field import MaskFieldValue
from smt.transforms.replace_field import ReplaceFieldValue
from tests.smt.transforms._helpers import RaisingErrors, conf, make_record

INSERT = (InsertFieldValue, {"topic.field": "source_topic", "partition.field": "source_partition"})
MASK = (MaskFieldValue, {"fields": "ssn,card"})
REPLACE = (ReplaceFieldValue, {"exclude": "internal", "renames": "name:customer_name"})


def value(i):
    return {"id": i, "name": f"n{i}", "ssn": "123", "card": 4111, "internal": {"shard": i}}


def expected(i, topic="orders", masked=True):
    out = {
        "id": i,
        "ssn": "" if masked else "123",
        "card": 0 if masked else 4111,
        "source_topic": topic,
        "source_partition": 0,
        "customer_name": f"n{i}",
    }
    return out


def records(count, topic="orders"):
    return [make_record(value(i), topic=topic) for i in range(count)]


def stage(alias, spec, predicate=None):
    cls, props = spec
    return ChainStage(alias, conf(cls, props), predicate)


class FanOut(Transform):
    """Each record twice, both rows holding the same value object."""

    name = "FanOut"

    def apply(self, record):
        return [record, record.replace(topic=record.topic + "-copy")]


class Duplicate(Transform):
    """Each row twice, by ``take`` with repeated indices (one map in two rows)."""

    name = "Duplicate"

    def apply_batch(self, batch, errors):
        return batch.take([row for row in range(len(batch)) for _ in (0, 1)])


def test_chain_leaves_the_input_values_as_they_were():
    inputs = records(3)
    before = copy.deepcopy([r.value for r in inputs])
    batch = RecordBatch.from_records(inputs)
    out = TransformChain([stage("i", INSERT), stage("m", MASK), stage("r", REPLACE)]).apply_batch(batch)
    assert [r.value for r in inputs] == before
    assert all(a is b for a, b in zip(batch.value, (r.value for r in inputs)))
    assert out.value == [expected(i) for i in range(3)]


def test_the_first_map_transform_copies_and_the_next_ones_update_its_copies():
    batch = RecordBatch.from_records(records(2))
    inserted = conf(*INSERT).apply_batch(batch, RaisingErrors())
    assert inserted.owns("value") and inserted.value[0] is not batch.value[0]
    masked = conf(*MASK).apply_batch(inserted, RaisingErrors())
    replaced = conf(*REPLACE).apply_batch(masked, RaisingErrors())
    assert replaced.owns("value")
    assert all(a is b for a, b in zip(replaced.value, inserted.value))
    assert replaced.value == [expected(0), expected(1)]


def test_nested_values_are_shared_but_never_changed():
    inner = {"shard": 1}
    batch = RecordBatch.from_records([make_record({"internal": inner, "ssn": "1"})])
    out = TransformChain([stage("m", MASK), stage("x", (MaskFieldValue, {"fields": "internal"}))]).apply_batch(batch)
    assert out.value == [{"internal": {}, "ssn": "", "card": None}]
    assert inner == {"shard": 1}


def test_predicate_skipped_rows_keep_their_values():
    inputs = records(2, topic="orders") + records(2, topic="audit")
    before = copy.deepcopy([r.value for r in inputs])
    only_orders = conf(TopicNameMatches, {"pattern": "orders"})
    chain = TransformChain([stage("i", INSERT), stage("m", MASK, only_orders), stage("r", REPLACE)])
    out = chain.apply_batch(RecordBatch.from_records(inputs))
    assert out.value == [
        expected(0),
        expected(1),
        expected(0, "audit", masked=False),
        expected(1, "audit", masked=False),
    ]
    assert [r.value for r in inputs] == before


@pytest.mark.parametrize("fan_out", [FanOut, Duplicate], ids=["apply", "take"])
def test_rows_sharing_one_map_are_copied_apart_before_any_update(fan_out):
    chain = TransformChain(
        [
            stage("i", INSERT),
            ChainStage("f", fan_out()),
            stage("m", MASK),
            stage("x", (InsertFieldValue, {"offset.field": "row_offset"})),
        ]
    )
    batch = RecordBatch.from_records(records(2))
    batch.set_column("offset", [10, 20])
    out = chain.apply_batch(batch)
    assert len(out) == 4 and len({id(v) for v in out.value}) == 4
    assert [v["row_offset"] for v in out.value] == [10, 10, 20, 20]
    assert [v["ssn"] for v in out.value] == [""] * 4


def test_an_owned_row_that_fails_is_left_as_it_was():
    batch = RecordBatch.from_records([make_record({"a": 1, "b": True}), make_record({"a": 2, "b": 3})])
    batch.set_column("value", [{"a": 1, "b": True}, {"a": 2, "b": 3}], owned=True)
    first = batch.value[0]
    errors = RaisingErrors()
    out = conf(MaskFieldValue, {"fields": "a,b", "replacement": "9"}).apply_batch(batch, errors)
    assert out.value == [{"a": 9, "b": 9}]
    [(row, exc)] = errors.failures
    assert row == 0 and isinstance(exc, DataError)
    assert str(exc) == "Cannot mask value of type bool with custom replacement."
    assert first == {"a": 1, "b": True}


def test_owned_non_map_rows_take_the_fallback_and_none_stays_none():
    batch = RecordBatch.from_records([make_record({"a": 1}), make_record(None), make_record("text")])
    batch.set_column("value", [{"a": 1}, None, "text"], owned=True)
    errors = RaisingErrors()
    out = conf(InsertFieldValue, {"static.field": "s", "static.value": "v"}).apply_batch(batch, errors)
    assert out.value == [{"a": 1, "s": "v"}, None]
    assert [row for row, _ in errors.failures] == [2]
    assert "Only Map objects supported in absence of schema for [field insertion], found: str" in str(
        errors.failures[0][1]
    )


# --- fused runs of map transforms ------------------------------------------------------------


def owned_batch(values, topic="orders"):
    batch = RecordBatch.from_records([make_record(v, topic=topic) for v in values])
    batch.set_column("value", [copy.deepcopy(v) for v in values], owned=True)
    return batch


MIXED = [value(0), None, "not a map", {"name": "x", "card": True}, value(4), {"ssn": [1], "internal": 1}]
FAILING_MASK = (MaskFieldValue, {"fields": "ssn,card", "replacement": "9"})


def per_record(chain, values):
    out, failed = [], []
    for row, v in enumerate(values):
        try:
            out += [r.value for r in chain.apply(make_record(copy.deepcopy(v), topic="orders"))]
        except Exception:  # the fused path must fail the same rows
            failed.append(row)
    return out, failed


@pytest.mark.parametrize("mask", [MASK, FAILING_MASK], ids=["mask", "mask-with-replacement"])
def test_a_fused_run_gives_what_the_stages_give_one_by_one(mask):
    chain = TransformChain([stage("i", INSERT), stage("m", mask), stage("r", REPLACE)])
    expected, expected_failed = per_record(chain, MIXED)
    failures = []

    class Collect(ChainErrorsForTest):
        def failed(self, origin, error):
            failures.append((origin, error.alias))

    out = chain.apply_batch(owned_batch(MIXED), Collect())
    assert chain._fused  # the three stages ran as one loop
    assert out.value == expected
    assert [origin for origin, _ in failures] == expected_failed
    assert out.owns("value")


def test_a_fused_run_names_the_stage_that_failed_and_counts_each_stage():
    from smt.metrics import ChainMetrics

    chain = TransformChain([stage("i", INSERT), stage("m", FAILING_MASK), stage("r", REPLACE)])
    failures = []

    class Collect(ChainErrorsForTest):
        def failed(self, origin, error):
            failures.append((origin, error.alias, str(error.__cause__)))

    metrics = ChainMetrics()
    out = chain.apply_batch(owned_batch([value(0), {"ssn": True}, "text"]), Collect(), metrics)
    assert failures == [
        (1, "m", "Cannot mask value of type bool with custom replacement."),
        (2, "i", "Only Map objects supported in absence of schema for [field insertion], found: str"),
    ]
    assert len(out) == 1
    counts = {alias: (m.records_in, m.records_out, m.errors) for alias, m in metrics.items()}
    assert counts == {"i": (3, 2, 1), "m": (2, 1, 1), "r": (1, 1, 0)}


def test_a_stage_with_a_predicate_is_not_fused_into_the_run():
    only_orders = conf(TopicNameMatches, {"pattern": "orders"})
    chain = TransformChain([stage("i", INSERT), stage("m", MASK, only_orders), stage("r", REPLACE)])
    batch = owned_batch([value(0)], topic="audit")
    out = chain.apply_batch(batch)
    assert out.value == [expected(0, "audit", masked=False)]
    assert not chain._fused


def test_a_chain_with_compiled_runs_pickles_without_them():
    import pickle

    chain = TransformChain([stage("i", INSERT), stage("m", MASK)])
    chain.apply_batch(owned_batch([value(1)]))
    copy_of = pickle.loads(pickle.dumps(chain))
    assert not copy_of._fused
    assert copy_of.apply_batch(owned_batch([value(1)])).value[0]["ssn"] == ""
