"""The parity harness against a fixed sample of cosmic-ray's mutants of the built-ins (tests/parity/_mutation.py).

The score (killed / sampled, and the share of behaviour-changing mutants
killed) is printed into the test run's output, CI's included.  The target is
90%; :data:`MINIMUM` is the floor reached so far, raised as the generators
widen (a ratchet: the score may not fall).  About 3 minutes: 40 s of it the cases,
the mutants then run one per core side by side.
"""

from __future__ import annotations

from tests.parity import _mutation

#: Surviving mutants judged equivalent (no input can tell them from the original), and why, by their
#: identity (``Mutant.identity``: module, enclosing function, operator, rank and the mutated line's text),
#: which stays put when other lines move.  Some are out of today's sample; the judgement stands if a
#: rate change draws them again.
EQUIVALENT: dict[str, str] = {
    "smt/transforms/insert_field.py InsertField.map_loop_plan ReplaceComparisonOperator_NotEq_IsNot#0: "
    'metadata = [kind for kind in self.insertions if kind != "static"]': (
        "the kinds compared are this module's own string literals, interned: 'is not' is '!=' for them"
    ),
    "smt/transforms/flatten.py Flatten._flat_fields ReplaceComparisonOperator_Is_Eq#0: if kind is Type.STRUCT:": "an Enum member equals only itself",
    "converters/json/_reader.py _reader_for_type ReplaceComparisonOperator_Is_Eq#0: if type_ is Type.STRING:": "an Enum member equals only itself",
    "converters/json/converter.py JsonConverter._learn_prefix ReplaceComparisonOperator_NotEq_LtE#0: "
    "while position != -1:": (
        "the loop that learns a schema's prefix never runs: the cache stays empty and every message takes the "
        "full parse, which gives what the cache gives (the cache only saves time)"
    ),
    "converters/json/converter.py _may_nest_too_deep ReplaceBinaryOperator_Mul_BitAnd#0: "
    "and len(data) > 2 * MAX_NESTING_DEPTH": (
        "the length bound only spares short documents a walk for their depth (a document N levels deep is at "
        "least 2N bytes); walking one more gives the depth the parse would, so every outcome is the same"
    ),
    "smt/transforms/_schema_cache.py SchemaCache.get ReplaceComparisonOperator_Gt_LtE#0: "
    "if len(entries) > self._size:": (
        "the cache then evicts on every miss instead of beyond its size: each schema is derived again, to the "
        "same result (the cache only saves time)"
    ),
    "smt/transforms/mask_field.py <module> NumberReplacer#4: _SAMPLES = {type(None): None, bool: True, int: 1, "
    'float: 1.0, str: "x", decimal.Decimal: decimal.Decimal(1)}': (
        "the sample Decimal only proves masking a Decimal succeeds; a masked Decimal is zero or the replacement "
        "whichever Decimal was masked"
    ),
    "converters/json/_writer.py has_non_finite_float NumberReplacer#0: return value - value != 0.0": (
        "a finite top-level float is then taken for NaN and sent to the general writer, which writes it to the "
        "same bytes (the check only chooses the way, not the result)"
    ),
    "converters/json/_schema_json.py _builder_for ReplaceComparisonOperator_Is_Eq#0: if type_ is Type.MAP:": (
        "type_ is always a Type member (from _TYPES_BY_NAME, None returned before): an Enum member equals only itself"
    ),
    "converters/json/_writer.py _writer_for_type ReplaceComparisonOperator_Is_LtE#0: if type_ is Type.ARRAY:": (
        "Type is a str Enum and only ARRAY, MAP and STRUCT reach the line: 'map' and 'struct' sort after 'array', "
        "so type_ <= Type.ARRAY holds for ARRAY alone, as 'is' does"
    ),
    "converters/json/_writer.py _temporal_writer ReplaceComparisonOperator_Eq_LtE#0: if name == Date.LOGICAL_NAME:": (
        "only Date's, Time's and Timestamp's names reach it; '...Time' and '...Timestamp' sort after '...Date', "
        "so name <= Date's name holds for Date alone, as '==' does"
    ),
    "smt/transforms/timestamp_router.py _groups NumberReplacer#0: if null_code <= 4 * len(codes) + 4096:": (
        "the bound only chooses how the codes are numbered (a presence table or np.unique); both give the "
        "distinct codes in ascending order and each row's rank among them, so the groups are the same"
    ),
}

#: The floor: the share of behaviour-changing sampled mutants the harness kills today (target 0.90; a ratchet).
MINIMUM = 0.94


def test_the_harness_kills_the_sampled_mutants(capsys):
    score = _mutation.run()
    report = score.report(EQUIVALENT)
    with capsys.disabled():
        print("\n" + report)
    assert score.rate(EQUIVALENT) >= MINIMUM, report


def test_mutants_are_sampled_from_every_target_module():
    paths = {m.path for m in _mutation.all_mutants()}
    assert {
        "smt/transforms/regex_router.py",
        "smt/predicates/topic_name_matches.py",
        "converters/json/converter.py",
    } <= paths
    chosen = _mutation.sample(rate=0.002)
    assert chosen and [m for m, _ in chosen] == [m for m, _ in _mutation.sample(rate=0.002)]  # every run the same
    assert all(code != (_mutation.ROOT / m.path).read_text() for m, code in chosen)
    identities = {m.identity for m in _mutation.all_mutants()}
    assert not set(EQUIVALENT) - identities, "EQUIVALENT names mutants the modules no longer have"


def test_an_edit_elsewhere_leaves_the_sample_alone():
    path = "smt/transforms/_casting.py"
    source = (_mutation.ROOT / path).read_text()
    cut = source.index("\ndef ")
    edited = source[:cut] + "\ndef _unrelated(x):\n    return -x if x > 0 else x + 1\n\n" + source[cut:]

    def drawn(text):
        return {m.identity: m for m in _mutation.mutants_of(path, text) if m.drawn(rate=0.2)}

    before, after = drawn(source), drawn(edited)
    added = {i for i, m in after.items() if m.scope == "_unrelated"}
    assert before and added, "the check needs mutants drawn on both sides of the edit"
    assert set(after) - added == set(before)  # the same mutants drawn outside the edit ...
    # ... though the edit moved their lines and cosmic-ray's indices (what the draw used to hang on).
    assert any(after[i].line == m.line + 4 and after[i].occurrence != m.occurrence for i, m in before.items())
