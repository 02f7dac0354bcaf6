"""A run never writes over its own input: such paths are refused by `smt validate` and before `smt run` touches anything."""

import os

import pytest

from smt.commands.output import EXIT_INVALID

LINES = "alpha\nbeta\n"


def pipeline_text(sink_path, write_mode="overwrite", extra=""):
    return (
        f"source.path=in\nsource.format=text\nsink.path={sink_path}\nsink.format=text\n"
        f"sink.write.mode={write_mode}\n{extra}"
    )


@pytest.mark.parametrize(
    "sink_path, relation, read",
    [
        ("in", "is the same path as", "in"),
        ("in/../in", "is the same path as", "in"),
        (".", "contains", "in"),
        ("in/out", "lies inside", "in"),
        ("linked-in", "is the same path as", "in"),  # a symlink to the input folder
    ],
)
def test_a_sink_over_the_input_is_refused_and_nothing_is_touched(probe, sink_path, relation, read):
    probe.input("a.txt", LINES)
    os.symlink(probe.root / "in", probe.root / "linked-in")
    pipeline = probe.pipeline(pipeline_text(sink_path))
    resolved = os.path.normpath(probe.root / sink_path)
    expected = (
        f"error: sink.path: '{resolved}' {relation} source.path '{probe.root / read}': writing there "
        "would overwrite or delete the input; choose another folder"
    )
    for command in ("validate", "run"):
        outcome = probe.smt(command, str(pipeline))
        assert outcome.code == EXIT_INVALID and expected in outcome.error_lines, outcome.err
    probe.assert_input_unchanged()


def test_a_sink_over_the_pipeline_file_is_refused(probe, tmp_path):
    probe.input("a.txt", LINES)
    elsewhere = tmp_path / "work"
    elsewhere.mkdir()
    pipeline = probe.pipeline(pipeline_text(".", extra=f"source.path={probe.root / 'in'}\n"), name="p.properties")
    pipeline = pipeline.rename(elsewhere / "p.properties")
    outcome = probe.smt("run", str(pipeline))
    assert outcome.code == EXIT_INVALID
    assert (
        f"error: sink.path: '{elsewhere}' contains the pipeline file '{pipeline}': writing there could "
        "delete it; choose another folder"
    ) in outcome.error_lines
    assert pipeline.exists()


@pytest.mark.parametrize(
    "dead_letters, message",
    [
        (
            "in/dead",
            "'{root}/in/dead' lies inside source.path '{root}/in': writing there would overwrite or delete the input",
        ),
        (
            "out/dead",
            "'{root}/out/dead' lies inside sink.path '{root}/out': the sink's write would delete the dead letters",
        ),
        (
            "out",
            "'{root}/out' is the same path as sink.path '{root}/out': the sink's write would delete the dead letters",
        ),
    ],
)
def test_dead_letters_over_the_input_or_the_output_are_refused(probe, dead_letters, message):
    probe.input("a.txt", LINES)
    pipeline = probe.pipeline(
        pipeline_text("out", extra=f"errors.tolerance=all\nerrors.deadletterqueue.path={dead_letters}\n")
    )
    outcome = probe.smt("validate", str(pipeline))
    assert outcome.code == EXIT_INVALID
    assert (
        f"error: errors.deadletterqueue.path: {message.format(root=probe.root)}; choose another folder"
        in outcome.error_lines
    ), outcome.err


def test_validate_reports_an_input_that_does_not_exist(probe):
    pipeline = probe.pipeline(pipeline_text("out").replace("source.path=in", "source.path=missing.txt"))
    outcome = probe.smt("validate", str(pipeline))
    assert outcome.code == EXIT_INVALID
    assert outcome.error_lines == [
        f"error: source.path: cannot read '{probe.root / 'missing.txt'}': no such file or directory"
    ]


@pytest.mark.spark
def test_an_existing_output_names_the_write_mode_key(probe, spark):
    probe.input("a.txt", LINES)
    (probe.root / "out").mkdir()
    (probe.root / "out" / "kept.txt").write_text("earlier output\n")
    outcome = probe.run(probe.pipeline(pipeline_text("out", write_mode="errorifexists")))
    assert outcome.code == EXIT_INVALID  # refused before Spark starts, as `smt validate` refuses it
    assert outcome.error_lines == [
        f"error: sink.path: '{probe.root / 'out'}' already exists and sink.write.mode is errorifexists; "
        "set sink.write.mode=overwrite to replace it, or append"
    ]
    assert (probe.root / "out" / "kept.txt").read_text() == "earlier output\n"
    probe.assert_input_unchanged()


@pytest.mark.spark
def test_a_sink_beside_the_input_runs_and_leaves_the_input_alone(probe, spark):
    from tests.reliability.conftest import assert_accounted

    probe.input("a.txt", LINES)
    outcome = probe.run(probe.pipeline(pipeline_text("out")))
    assert_accounted(outcome, written_lines=2, dead_letters=0)
    assert sorted(probe.lines("out")) == [b"alpha", b"beta"]
    probe.assert_input_unchanged()
