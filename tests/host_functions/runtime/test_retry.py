"""The one retry rule every ABI's runner asks: out of memory, once per record."""

from __future__ import annotations

from host_functions.runtime.retry import RetryPolicy


def test_out_of_memory_runs_a_record_again_once():
    policy = RetryPolicy()

    assert [policy.retry_out_of_memory(7), policy.retry_out_of_memory(7), policy.retry_out_of_memory(8)] == [
        True,
        False,
        True,
    ]


def test_out_of_memory_without_a_record_runs_again_once_until_progress():
    policy = RetryPolicy()

    assert policy.retry_out_of_memory()
    assert not policy.retry_out_of_memory()
    policy.progressed()
    assert policy.retry_out_of_memory()
