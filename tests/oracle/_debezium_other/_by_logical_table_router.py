"""Debezium oracle cases for ByLogicalTableRouter: topics merged and split, key identifiers, schema name adjustments."""

from __future__ import annotations

from hypothesis import strategies as st

from tests.oracle import _debezium_cases as dbz
from tests.oracle._debezium_other._pipeline import change_events, paired, pipeline

ROUTER = "ByLogicalTableRouter (Debezium)"
#: Physical topic prefixes: plain, and with characters that Avro names cannot hold.
_TOPIC_PREFIXES = ("srv.inv.", "srv-1.inv.", "1srv.inv.", "srv.ïnv.")
#: (topic.regex, topic.replacement): tables merged into one topic, each into its own, named
#: groups, an escaped $, a replacement that empties the topic (the record is left alone), no match (the regex must match the
#: whole topic), a group the regex lacks (the record fails), a regex that is not one, a blank
#: replacement (refused: the key is required).
_TOPIC_ROUTES = [
    (r"(.*)\.inv\.(.*)", "$1.all_tables"),
    (r"(.*)\.(orders|users)", "$1.shop_$2"),
    (r"(?<server>[^.]+)\.[^.]+\.(?<table>.*)", "${server}.merged"),
    (r"(.*)\.inv\.(.*)", r"logical.\$$2"),
    (r"(.*)", "$1_all"),  # replaceFirst: one replacement, though (.*) also matches at the end
    (r"()srv.*orders", "$1"),
    (r"(.*)orders", ""),
    (r"srv", "x"),
    (r"(.*)\.inv\.(.*)", "$3"),
    (r"[unclosed", "x"),
]
#: (key.field.regex, key.field.replacement): none; the table; one that matches one table only
#: (the other keeps its topic); blank; a regex without a replacement (refused).
_KEY_IDENTIFIERS = [
    (None, None),
    (r"(.*)\.inv\.(.*)", "$2"),
    (r"(.*)\.(users)", "u_$2"),
    (" ", None),
    (r"(.*)", None),
]


def _router(index: int) -> dict:
    """The ``index``-th configuration: each option list taken in turn, at its own stride."""
    regex, replacement = _TOPIC_ROUTES[index % len(_TOPIC_ROUTES)]
    key_regex, key_replacement = _KEY_IDENTIFIERS[(index + index // len(_TOPIC_ROUTES)) % len(_KEY_IDENTIFIERS)]
    return {
        "topic.regex": regex,
        "topic.replacement": replacement,
        "key.enforce.uniqueness": (None, "true", "false")[index % 3],
        "key.field.name": (None, "table_id", None, None, "id")[index // 3 % 5],  # id: a key field already
        "key.field.regex": key_regex,
        "key.field.replacement": key_replacement,
        "schema.name.adjustment.mode": (None, "avro", "avro_unicode", "none", "Avro")[index % 5],
        "logical.table.cache.size": (None, "1")[index // 5 % 2],
    }


@st.composite
def _routed_events(draw, with_schemas: bool) -> list[dict]:
    """Change events of one or two tables under one topic prefix; some have no key (a table without
    a primary key)."""
    tables = draw(st.lists(dbz.table(), min_size=1, max_size=2))
    prefix = draw(st.sampled_from(_TOPIC_PREFIXES))
    records = []
    for record in change_events(draw, tables, with_schemas):
        keyless = draw(st.integers(0, 5)) == 5
        topic = prefix + record["topic"].removeprefix("srv.inv.")
        records.append({**record, "topic": topic, **({"key": None} if keyless else {})})
    return records


def router_cases() -> list[dict]:
    """Forty-five configurations (:func:`_router`), an unknown adjustment mode and a topic.regex left
    out, over schema'd events; three over schemaless ones (a schemaless key fails the record)."""
    settings = [_router(i) for i in range(45)]
    settings += [{**_router(0), "schema.name.adjustment.mode": "bogus"}, {"topic.replacement": "x"}]
    schemaless = [_router(0), _router(1), {**_router(5), "key.enforce.uniqueness": "false"}]
    type_ = "io.debezium.transforms.ByLogicalTableRouter"
    return [
        pipeline(ROUTER, type_, keys, records, True) for keys, records in paired(settings, _routed_events(True))
    ] + [pipeline(ROUTER, type_, keys, records, False) for keys, records in paired(schemaless, _routed_events(False))]
