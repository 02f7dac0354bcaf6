"""The checkpoint lock: one holder at a time, released with the run, only where it can be taken."""

import logging
import types

import pytest

from smt.pipeline.checkpoint_lock import LOCK_FILE, CheckpointInUse, checkpoint_lock, local_path
from smt.pipeline.streaming import FINGERPRINT_FILE


def spec(location, streaming=True):
    return types.SimpleNamespace(streaming=streaming, config={"checkpoint.location": location})


def test_a_second_holder_is_refused_naming_the_first_until_it_lets_go(tmp_path):
    location = str(tmp_path / "checkpoint")
    with checkpoint_lock(spec(location)):
        with pytest.raises(
            CheckpointInUse, match=r"checkpoint\.location '.*checkpoint' is in use by another run \(pid \d+ on "
        ):
            with checkpoint_lock(spec(location)):
                pass
    with checkpoint_lock(spec(location)):
        pass


def test_the_lock_file_is_set_apart_from_sparks_state_as_the_fingerprint_is():
    assert FINGERPRINT_FILE in LOCK_FILE


@pytest.mark.parametrize(
    "location, local",
    [
        ("checkpoint", "checkpoint"),
        ("/data/cp", "/data/cp"),
        ("file:///data/cp", "/data/cp"),
        ("s3a://b/cp", None),
        ("hdfs://nn/cp", None),
    ],
)
def test_only_local_checkpoints_are_locked(location, local):
    assert local_path(location) == local


def test_a_remote_checkpoint_is_not_locked_and_says_so(caplog):
    with caplog.at_level(logging.WARNING), checkpoint_lock(spec("s3a://bucket/cp")):
        pass
    assert "cannot be locked, so make sure no other run uses it at the same time" in caplog.text


def test_batch_runs_take_no_lock(tmp_path):
    with checkpoint_lock(spec(str(tmp_path / "cp"), streaming=False)):
        pass
    assert not (tmp_path / "cp").exists()
