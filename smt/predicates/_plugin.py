"""Registers the built-in predicates."""

from smt.plugins import hookimpl


@hookimpl
def smt_predicates():
    from smt.predicates.has_header_key import HasHeaderKey
    from smt.predicates.record_is_tombstone import RecordIsTombstone
    from smt.predicates.topic_name_matches import TopicNameMatches

    return [TopicNameMatches, HasHeaderKey, RecordIsTombstone]
