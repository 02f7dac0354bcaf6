"""Building chains from properties and applying them: order, predicates, negate, fan-out, errors."""

import pytest

from smt import ConfigError, Record, RecordBatch, StageError, TransformChain
from smt.chain import ChainStage
from smt.transform import Transform
from tests.smt.sample_plugins import sample_plugins


@pytest.fixture(scope="module")
def plugins():
    return sample_plugins()


def chain(plugins, **props):
    return TransformChain.from_properties({k.replace("__", "."): v for k, v in props.items()}, plugins=plugins)


def values(records):
    return [r.value for r in records]


def test_stages_apply_in_listed_order(plugins):
    c = chain(
        plugins,
        transforms="a,b",
        transforms__a__type="AppendSuffix",
        transforms__a__suffix="-a",
        transforms__b__type="AppendSuffix",
        transforms__b__suffix="-b",
    )
    assert values(c.apply(Record(value="x"))) == ["x-a-b"]


def test_kafka_style_alias_is_accepted_as_type(plugins):
    c = chain(plugins, transforms="a", transforms__a__type="com.example.AppendSuffix", transforms__a__suffix="!")
    assert values(c.apply(Record(value="x"))) == ["x!"]


@pytest.mark.parametrize(
    "value, negate, expected",
    [
        ("keep-me", None, ["keep-me+"]),
        ("other", None, ["other"]),
        ("keep-me", "true", ["keep-me"]),
        ("other", "TRUE", ["other+"]),
        ("other", "false", ["other"]),
    ],
)
def test_predicate_and_negate_decide_whether_a_stage_applies(plugins, value, negate, expected):
    props = dict(
        transforms="a",
        transforms__a__type="AppendSuffix",
        transforms__a__suffix="+",
        transforms__a__predicate="p",
        predicates="p",
        predicates__p__type="ValueStartsWith",
        predicates__p__prefix="keep",
    )
    if negate is not None:
        props["transforms__a__negate"] = negate
    assert values(chain(plugins, **props).apply(Record(value=value))) == expected


def test_predicate_sees_the_record_as_earlier_stages_left_it(plugins):
    c = chain(
        plugins,
        transforms="a,b",
        transforms__a__type="AppendSuffix",
        transforms__a__suffix="keep",
        transforms__b__type="AppendSuffix",
        transforms__b__suffix="!",
        transforms__b__predicate="p",
        predicates="p",
        predicates__p__type="ValueStartsWith",
        predicates__p__prefix="xkeep",
    )
    assert values(c.apply(Record(value="x"))) == ["xkeep!"]


def test_a_dropped_record_ends_the_chain(plugins):
    c = chain(
        plugins,
        transforms="drop,a",
        transforms__drop__type="DropValue",
        transforms__drop__value="x",
        transforms__a__type="AppendSuffix",
        transforms__a__suffix="!",
    )
    assert c.apply(Record(value="x")) == []
    assert values(c.apply(Record(value="y"))) == ["y!"]


def test_fan_out_feeds_every_output_to_the_next_stage(plugins):
    c = chain(
        plugins,
        transforms="split,a",
        transforms__split__type="Split",
        transforms__a__type="AppendSuffix",
        transforms__a__suffix="!",
    )
    assert values(c.apply(Record(value="a|b|c"))) == ["a!", "b!", "c!"]


def test_failure_names_stage_transform_alias_and_record(plugins):
    c = chain(plugins, transforms="a", transforms__a__type="AppendSuffix", transforms__a__suffix="!")
    with pytest.raises(
        StageError,
        match=r"TRANSFORMATION stage with .*AppendSuffix \(alias 'a'\) on record "
        r"topic='t' partition=3 offset=7: DataError: cannot append to boom",
    ):
        c.apply(Record(topic="t", partition=3, offset=7, value="boom"))


def test_a_batch_runs_predicates_and_fan_out_row_by_row_keeping_origins(plugins):
    c = chain(
        plugins,
        transforms="split,a,drop",
        transforms__split__type="Split",
        transforms__split__predicate="p",
        predicates="p",
        predicates__p__type="ValueStartsWith",
        predicates__p__prefix="s",
        transforms__a__type="AppendSuffix",
        transforms__a__suffix="+",
        transforms__drop__type="DropValue",
        transforms__drop__value="x+",
    )
    records = [Record(value=v, offset=i) for i, v in enumerate(["s1|s2", "x", "y", "sa|x|sb"])]
    batch = c.apply_batch(RecordBatch.from_records(records))
    assert values(batch.records()) == ["s1+", "s2+", "y+", "sa+", "sb+"]
    assert batch.origin == [0, 0, 2, 3, 3]
    assert [out for r in records for out in c.apply(r)] == batch.records()


class _BatchOnly(Transform):
    """A transform with only a batch path: ``chain.apply`` must reach it through ``apply_batch``."""

    def apply(self, record):
        raise AssertionError("the record path was called")

    def apply_batch(self, batch, errors):
        for row, value in enumerate(batch.value):
            if value == "bad":
                errors.fail(row, ValueError("bad value"))
        return batch.with_columns(value=[f"{v}!" for v in batch.value]).without_rows(
            [row for row, value in enumerate(batch.value) if value == "bad"]
        )


def test_apply_runs_the_record_as_a_one_row_batch():
    c = TransformChain([ChainStage("only", _BatchOnly())])
    assert c.apply(Record(value="x", offset=4)) == [Record(value="x!", offset=4)]
    with pytest.raises(StageError, match=r"_BatchOnly \(alias 'only'\) on record .*offset=5: ValueError: bad value"):
        c.apply(Record(value="bad", offset=5))


@pytest.mark.parametrize(
    "props, message",
    [
        ({"transforms": "a,a", "transforms.a.type": "Split"}, r"transforms: duplicate alias 'a'"),
        ({"transforms": "a"}, r"transforms\.a\.type: is required"),
        (
            {"transforms": "a", "transforms.a.type": "Nope"},
            r"transforms\.a\.type: unknown transform 'Nope'; known: .*AppendSuffix",
        ),
        (
            {"transforms": "a", "transforms.a.type": "Split", "transforms.a.negate": "true"},
            r"transforms\.a\.negate: is set but transforms\.a\.predicate is not",
        ),
        (
            {"transforms": "a", "transforms.a.type": "Split", "transforms.a.predicate": "p"},
            r"transforms\.a\.predicate: unknown predicate alias 'p'",
        ),
        ({"transforms": "a", "transforms.a.type": "AppendSuffix"}, r"transforms\.a\.suffix: is required"),
        (
            {"transforms": "a", "transforms.a.type": "AppendSuffix", "transforms.a.suffix": "  "},
            r"transforms\.a\.suffix: must be a non-empty string",
        ),
        (
            {
                "transforms": "a",
                "transforms.a.type": "Split",
                "transforms.a.predicate": "p",
                "predicates": "p",
                "predicates.p.type": "ValueStartsWith",
            },
            r"predicates\.p\.prefix: is required",
        ),
    ],
)
def test_configuration_errors_name_the_key(plugins, props, message):
    with pytest.raises(ConfigError, match=message):
        TransformChain.from_properties(props, plugins=plugins)


def test_every_problem_is_reported_at_once(plugins):
    with pytest.raises(ConfigError) as info:
        TransformChain.from_properties(
            {"transforms": "a,b", "transforms.a.type": "Nope", "transforms.b.type": "AppendSuffix"},
            plugins=plugins,
        )
    assert [p.key for p in info.value.problems] == ["transforms.a.type", "transforms.b.suffix"]


def test_close_closes_each_plugin_once(plugins):
    c = chain(
        plugins,
        transforms="a,b",
        transforms__a__type="Split",
        transforms__b__type="Split",
        transforms__a__predicate="p",
        transforms__b__predicate="p",
        predicates="p",
        predicates__p__type="ValueStartsWith",
        predicates__p__prefix="x",
    )
    closed = []
    for plugin in (c.stages[0].transform, c.stages[1].transform, c.stages[0].predicate):
        plugin.close = lambda plugin=plugin: closed.append(plugin)
    c.close()
    assert len(closed) == 3


def test_metrics_count_each_stage_in_out_dropped_and_errors(plugins):
    from smt.chain import ChainErrors
    from smt.metrics import ChainMetrics

    class Collect(ChainErrors):
        def __init__(self):
            self.failures = []

        def failed(self, origin, error):
            self.failures.append(origin)

    c = chain(
        plugins,
        transforms="split,a,drop",
        transforms__split__type="Split",
        transforms__a__type="AppendSuffix",
        transforms__a__suffix="+",
        transforms__a__predicate="p",
        predicates="p",
        predicates__p__type="ValueStartsWith",
        predicates__p__prefix="b",
        transforms__drop__type="DropValue",
        transforms__drop__value="x",
    )
    metrics = ChainMetrics()
    errors = Collect()
    records = [Record(value=v) for v in ["x|q|y", "b1|b2"]]
    out = c.apply_batch(RecordBatch.from_records(records), errors, metrics)
    assert [r.value for r in out.records()] == ["q", "y", "b1+", "b2+"]
    assert out.origin == [0, 0, 1, 1]
    assert errors.failures == []
    as_tuples = {alias: (m.records_in, m.records_out, m.dropped, m.errors) for alias, m in metrics.items()}
    assert as_tuples == {"split": (2, 5, 0, 0), "a": (2, 2, 0, 0), "drop": (5, 4, 1, 0)}
    assert all(m.seconds >= 0 for m in metrics.values())


def test_metrics_count_failures_per_stage(plugins):
    from smt.chain import ChainErrors
    from smt.metrics import ChainMetrics

    class Collect(ChainErrors):
        def failed(self, origin, error):
            pass

    c = chain(
        plugins,
        transforms="split,a",
        transforms__split__type="Split",
        transforms__a__type="AppendSuffix",
        transforms__a__suffix="+",
    )
    metrics = ChainMetrics()
    out = c.apply_batch(RecordBatch.from_records([Record(value="boom|ok")]), Collect(), metrics)
    assert [r.value for r in out.records()] == ["ok+"]
    assert (metrics["a"].records_in, metrics["a"].records_out, metrics["a"].errors, metrics["a"].dropped) == (
        2,
        1,
        1,
        0,
    )
