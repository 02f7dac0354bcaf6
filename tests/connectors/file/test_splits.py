"""Planning file reads: what is listed, how files are cut, how pieces are packed into tasks."""

import pytest

from connectors.file._splits import (
    OPEN_COST_BYTES,
    FileSplit,
    list_files,
    max_split_bytes,
    pack_splits,
    split_files,
)


def test_a_directory_lists_its_data_files_by_name_without_hidden_ones(tmp_path):
    for name, size in [("b.txt", 3), ("a.txt", 5), ("_SUCCESS", 0), (".a.txt.crc", 1)]:
        (tmp_path / name).write_bytes(b"x" * size)
    assert list_files(str(tmp_path)) == [(str(tmp_path / "a.txt"), 5), (str(tmp_path / "b.txt"), 3)]


def test_a_single_file_and_a_file_uri(tmp_path):
    (tmp_path / "in.txt").write_bytes(b"abc")
    assert list_files(str(tmp_path / "in.txt")) == [(str(tmp_path / "in.txt"), 3)]
    assert list_files(f"file://{tmp_path}/in.txt") == [(str(tmp_path / "in.txt"), 3)]


@pytest.mark.parametrize("path", ["s3a://bucket/in", "hdfs://nn/in", "in/*.txt", "in/part-{1,2}"])
def test_remote_paths_and_globs_are_left_to_spark(path):
    assert list_files(path) is None


def test_nested_folders_and_compressed_files_are_left_to_spark(tmp_path):
    (tmp_path / "nested").mkdir()
    (tmp_path / "nested" / "x=1").mkdir()
    assert list_files(str(tmp_path / "nested")) is None
    (tmp_path / "gz").mkdir()
    (tmp_path / "gz" / "part.txt.gz").write_bytes(b"\x1f\x8b")
    assert list_files(str(tmp_path / "gz")) is None


def test_files_are_cut_into_pieces_of_at_most_the_split_size():
    splits = split_files([("a", 10), ("b", 0), ("c", 4)], 4)
    assert splits == [FileSplit("a", 0, 4), FileSplit("a", 4, 4), FileSplit("a", 8, 2), FileSplit("c", 0, 4)]
    assert [s.end for s in splits] == [4, 8, 10, 4]


def test_the_split_size_keeps_every_core_busy_within_spark_limits():
    mib = 1024 * 1024
    assert max_split_bytes(1024 * mib, 1, parallelism=2) == 128 * mib  # capped by maxPartitionBytes
    assert max_split_bytes(100 * mib, 1, parallelism=2) == (100 * mib + OPEN_COST_BYTES) // 2
    assert max_split_bytes(1 * mib, 1, parallelism=8) == OPEN_COST_BYTES  # never below the open cost
    assert max_split_bytes(10 * mib, 1, parallelism=1, max_partition_bytes=mib) == mib


def test_small_pieces_share_a_task_and_large_ones_get_their_own():
    mib = 1024 * 1024
    big = [FileSplit("big", i * 64 * mib, 64 * mib) for i in range(2)]
    small = [FileSplit(f"s{i}", 0, 1000) for i in range(3)]
    tasks = pack_splits(small + big, target_bytes=64 * mib)
    assert tasks[:2] == [[big[0]], [big[1]]]
    assert sorted(s.path for s in tasks[2]) == ["s0", "s1", "s2"]
    assert sorted((s.path, s.start) for task in tasks for s in task) == sorted((s.path, s.start) for s in small + big)
