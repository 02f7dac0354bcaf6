"""The oracle's cases are a function of the strategy, the count and the seed: not of what ran before."""

from __future__ import annotations

import importlib
import json

import pytest
from hypothesis import strategies as st

from tests.oracle import _cases
from tests.oracle._generation import SCALE_VARIABLE, SEED_VARIABLE, generate, scaled

NUMBERS = st.lists(st.integers(-(10**6), 10**6), min_size=30, max_size=30)


def _module_full_of_constants(directory, name: str) -> None:
    """A local module whose source holds 200 integers in NUMBERS' range: hypothesis's local constants
    (it ignores a module with more than 1024)."""
    constants = ", ".join(str(n) for n in range(-(10**6), 10**6, 9973))
    (directory / f"{name}.py").write_text(f"NUMBERS = ({constants})\n")


def test_cases_do_not_depend_on_the_modules_loaded_before(tmp_path, monkeypatch):
    before = generate(NUMBERS, 20)
    _module_full_of_constants(tmp_path, "oracle_constants_probe")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("oracle_constants_probe")
    assert generate(NUMBERS, 20) == before


def test_cases_are_the_same_when_drawn_again():
    records = st.lists(_cases.record("schema"), min_size=3, max_size=3)
    assert json.dumps(generate(records, 3)) == json.dumps(generate(records, 3))


def test_the_seed_variable_draws_other_cases(monkeypatch):
    default = generate(NUMBERS, 5)
    monkeypatch.setenv(SEED_VARIABLE, "7")
    assert generate(NUMBERS, 5) != default


def test_the_scale_variable_multiplies_the_counts(monkeypatch):
    monkeypatch.setenv(SCALE_VARIABLE, "3")
    assert scaled(40) == 120


def test_a_seed_that_is_not_an_integer_is_refused(monkeypatch):
    monkeypatch.setenv(SEED_VARIABLE, "seven")
    with pytest.raises(ValueError, match=r"SMT_ORACLE_SEED must be an integer, got 'seven'"):
        generate(NUMBERS, 1)
