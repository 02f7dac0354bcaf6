"""The one retry rule every ABI's runner asks: interrupted by another call's timeout, or out of memory once."""

from __future__ import annotations

import wasmtime

from host_functions.runtime.retry import SPURIOUS_RETRIES, RetryPolicy, interrupted


def _interrupt() -> wasmtime.Trap:
    """A real epoch interrupt, as the watchdog causes it."""
    engine_config = wasmtime.Config()
    engine_config.epoch_interruption = True
    engine = wasmtime.Engine(engine_config)
    store = wasmtime.Store(engine)
    store.set_epoch_deadline(1)
    module = wasmtime.Module(engine, '(module (func (export "spin") (loop $l (br $l))))')
    spin = wasmtime.Instance(store, module, []).exports(store)["spin"]
    engine.increment_epoch()
    try:
        spin(store)
    except wasmtime.Trap as trap:
        return trap
    raise AssertionError("the guest was not interrupted")


def test_an_epoch_interrupt_is_recognised_and_a_host_error_is_not():
    assert interrupted(_interrupt())
    assert not interrupted(RuntimeError("not a trap"))
    assert not interrupted(None)


def test_an_interrupt_caused_by_another_call_runs_again_a_bounded_number_of_times_in_a_row():
    policy, trap = RetryPolicy(), _interrupt()

    answers = [policy.retry_interrupt(trap, timed_out=False) for _ in range(SPURIOUS_RETRIES + 1)]

    assert answers == [True] * SPURIOUS_RETRIES + [False]
    assert policy.exhausted(True)


def test_progress_counts_interrupts_afresh():
    policy = RetryPolicy(limit=1)

    assert policy.retry_interrupted(True)
    assert not policy.retry_interrupted(True)
    policy.progressed()
    assert policy.retry_interrupted(True)


def test_a_call_that_timed_out_itself_does_not_run_again():
    policy = RetryPolicy()

    assert not policy.retry_interrupt(_interrupt(), timed_out=True)
    assert not policy.exhausted(False)


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
    policy.progressed(memory=False)
    assert not policy.retry_out_of_memory()
    policy.progressed()
    assert policy.retry_out_of_memory()
