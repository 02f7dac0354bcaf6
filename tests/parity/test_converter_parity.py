"""Every built-in converter with a batch path: per item and per column, the same values and the same errors.

Reading: bytes drawn as the oracle draws them (well formed, truncated, other
types, nulls); writing: (schema, value) pairs that fit and that do not
(tests/parity/_converter_cases.py).  The JSON converter's compiled reader is
driven in test_compiled_parity.py.
"""

from __future__ import annotations

import pytest

from tests.parity._converter_cases import CONVERTERS, cases, run_converter


@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")  # a float64 written as float32
@pytest.mark.parametrize("name", sorted(CONVERTERS))
def test_every_path_of_a_converter_gives_the_per_item_outcome(name):
    problems, failures, _ = run_converter(name, cases(name))
    assert not problems, "\n".join(problems[:3])
    assert failures > 0  # the cases reach the error paths too
