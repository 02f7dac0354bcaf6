"""A small local batch run starts Spark's JVM with the quick JIT only; anything else keeps the JVM's defaults."""

import pytest

from smt.pipeline import PipelineSpec
from smt.pipeline.quick_start import QUICK_JIT, SMALL_INPUT_BYTES, quick_start_conf

OPTIONS = "spark.driver.extraJavaOptions"


def spec_over(source, tmp_path, **props):
    return PipelineSpec.from_properties(
        {"source.path": str(source), "sink.path": str(tmp_path / "out"), "spark.master": "local[2]", **props}
    )


def quick_options(spec):
    return quick_start_conf(spec, spec.spark_conf()).get(OPTIONS)


def test_a_small_file_on_a_local_master_starts_with_the_quick_jit(tmp_path):
    source = tmp_path / "in.txt"
    source.write_text("a\nb\n")
    assert quick_options(spec_over(source, tmp_path)) == QUICK_JIT


def test_a_folder_counts_every_file_in_it(tmp_path):
    folder = tmp_path / "in"
    (folder / "day=1").mkdir(parents=True)
    (folder / "day=1" / "part-0.txt").write_bytes(b"x" * (SMALL_INPUT_BYTES // 2))
    (folder / "part-1.txt").write_bytes(b"x" * 10)
    assert quick_options(spec_over(folder, tmp_path)) == QUICK_JIT
    (folder / "part-2.txt").write_bytes(b"x" * (SMALL_INPUT_BYTES // 2))
    assert quick_options(spec_over(folder, tmp_path)) is None


def test_the_users_own_flags_come_after_ours_so_theirs_win(tmp_path):
    source = tmp_path / "in.txt"
    source.write_text("a\n")
    spec = spec_over(source, tmp_path, **{OPTIONS: "-XX:TieredStopAtLevel=4 -Dfoo=bar"})
    assert quick_options(spec) == f"{QUICK_JIT} -XX:TieredStopAtLevel=4 -Dfoo=bar"


@pytest.mark.parametrize(
    "props",
    [{"spark.master": "spark://127.0.0.1:7077"}, {"mode": "streaming", "checkpoint.location": "{tmp}/checkpoint"}],
    ids=["a cluster", "a stream"],
)
def test_a_cluster_or_a_stream_keeps_the_jvm_defaults(tmp_path, props):
    source = tmp_path / "in"
    source.mkdir()
    (source / "a.txt").write_text("a\n")
    spec = spec_over(source, tmp_path, **{key: value.format(tmp=tmp_path) for key, value in props.items()})
    assert quick_options(spec) is None


def test_a_source_whose_size_cannot_be_told_keeps_the_jvm_defaults(tmp_path):
    spec = PipelineSpec.from_properties(
        {"source": "generator", "sink.path": str(tmp_path / "out"), "spark.master": "local[2]"}
    )
    assert quick_options(spec) is None
