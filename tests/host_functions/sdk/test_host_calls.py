"""Every SDK helper against the real host: a guest that calls each one, run by WasmTransform.

The host checks each import's signature when the transform is built, so building these guests
also holds every SDK declaration to the ABI.
"""

import logging
from pathlib import Path

import pytest

from host_functions.sdk import build_guest
from smt.record import Record
from tests.host_functions.conftest import run

GUESTS = Path(__file__).parents[1] / "guests"
LANGUAGES = ["c", "zig", "go"]
PATHS = ["fast", "reference"]


@pytest.fixture(scope="module")
def tour_module(tmp_path_factory, require_guest_toolchains):
    require_guest_toolchains(*LANGUAGES)
    out_dir = tmp_path_factory.mktemp("sdk-tour")
    return {language: build_guest(GUESTS / f"sdk_tour.{language}", out_dir).read_bytes() for language in LANGUAGES}


def configure(make_transform, tour_module, language, function, **config):
    if language == "go":  # the Go runtime imports WASI
        config["wasi"] = "true"
    return make_transform(tour_module[language], function, **config)


def tour_record(**changes) -> Record:
    fields = dict(
        topic="orders",
        partition=3,
        offset=42,
        timestamp=1_700_000_000_000,
        key=b"k-1",
        value=b"payload",
        headers=(("next-key", b"k-2"),),
    )
    fields.update(changes)
    return Record(**fields)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_getter_and_setter_reaches_the_record(make_transform, tour_module, language, path):
    transform = configure(make_transform, tour_module, language, "tour", path=path, config_greeting="hi")

    out, origins, errors = run(transform, [tour_record()])

    assert errors.failures == []
    assert origins == [0]
    assert out == [
        tour_record(
            topic="orders.out",
            timestamp=1_700_000_001_000,
            key=b"k-2",
            headers=(
                ("next-key", b"k-2"),
                ("partition", b"3"),
                ("offset", b"42"),
                ("greeting", b"hi"),
                ("key-was", b"k-1"),
            ),
        )
    ]


@pytest.mark.parametrize("language", LANGUAGES)
def test_unknown_coordinates_and_unset_config_read_as_minus_one_and_nothing(make_transform, tour_module, language):
    transform = configure(make_transform, tour_module, language, "tour")
    record = tour_record(partition=None, offset=None, timestamp=None, key=None, headers=())

    out, _, errors = run(transform, [record])

    assert errors.failures == []
    assert out == [
        record.replace(topic="orders.out", headers=(("partition", b"-1"), ("offset", b"-1"), ("key-was", b"")))
    ]


@pytest.mark.parametrize("language", LANGUAGES)
def test_log_goes_to_the_transform_logger(make_transform, tour_module, language, caplog):
    transform = configure(make_transform, tour_module, language, "tour")

    with caplog.at_level(logging.INFO):
        run(transform, [tour_record()])

    assert "tour: done" in [record.getMessage() for record in caplog.records]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_record_json_round_trips_unchanged(make_transform, tour_module, language):
    transform = configure(make_transform, tour_module, language, "record_roundtrip")
    record = tour_record(headers=(("a", b"\x00\xff"), ("b", b"2")))

    out, _, errors = run(transform, [record])

    assert errors.failures == []
    assert out == [record]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_an_error_result_fails_only_its_record_with_the_guest_message(make_transform, tour_module, language, path):
    transform = configure(make_transform, tour_module, language, "fail_on_request", path=path)
    records = [tour_record(value=b"ok"), tour_record(value=b"fail"), tour_record(value=b"fine")]

    out, origins, errors = run(transform, records)

    assert [r.value for r in out] == [b"ok", b"fine"]
    assert origins == [0, 2]
    assert errors.rows == [1]
    assert "sdk_tour: failed as asked" in errors.message(1)


def test_zig_guests_are_built_with_safety_checks_so_a_bug_traps_its_record_only(make_transform, tour_module):
    transform = make_transform(tour_module["zig"], "read_past_end")
    records = [tour_record(value=b"abc"), tour_record(value=b"oob"), tour_record(value=b"xyz")]

    out, origins, errors = run(transform, records)

    assert [(r.key, r.value) for r in out] == [(b"a", b"abc"), (b"x", b"xyz")]
    assert origins == [0, 2]
    assert errors.rows == [1]
    assert "unreachable instruction executed (the guest aborted)" in errors.message(1)
