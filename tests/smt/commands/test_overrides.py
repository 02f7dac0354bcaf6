"""``--set`` and ``--unset`` (#34 item 7): a key removed, and a value the shell cut short gets a quoting hint."""

import pytest

from smt.cli import EXIT_INVALID, main

FILE_TO_FILE = "source=file\nsource.path=in.txt\nsink=file\nsink.path=out\nsink.format=text\nvalue.converter=string\n"


@pytest.fixture
def pipeline(tmp_path):
    (tmp_path / "in.txt").write_text("a line\n", encoding="utf-8")
    path = tmp_path / "p.properties"
    path.write_text(FILE_TO_FILE + "transforms=m\ntransforms.m.type=MaskField$Value\ntransforms.m.fields=a\n")
    return str(path)


def test_unset_removes_a_key_so_a_file_sink_becomes_the_console(pipeline, capsys):
    assert main(["validate", pipeline, "--set", "sink=console"]) == EXIT_INVALID
    assert "error: sink.path: unknown key: no plugin reads it" in capsys.readouterr().err
    assert main(["validate", pipeline, "--set", "sink=console", "--unset", "sink.path", "--unset", "sink.format"]) == 0
    assert capsys.readouterr().out.strip() == f"{pipeline}: valid"


def test_unset_of_a_key_the_file_does_not_set_is_a_warning(pipeline, capsys):
    assert main(["validate", pipeline, "--unset", "sink.pth"]) == 0
    captured = capsys.readouterr()
    assert "warning: sink.pth: --unset names a key the file does not set, so nothing was removed" in captured.err
    assert captured.out.strip() == f"{pipeline}: valid (1 warning)"


def test_a_set_value_that_lost_its_variant_to_the_shell_gets_a_quoting_hint(pipeline, capsys):
    # What `--set transforms.m.type=org.apache.kafka.connect.transforms.MaskField$Value` becomes unquoted.
    name = "org.apache.kafka.connect.transforms.MaskField"
    assert main(["validate", pipeline, "--set", f"transforms.m.type={name}"]) == EXIT_INVALID
    err = capsys.readouterr().err
    assert f"error: transforms.m.type: unknown transform '{name}' (it comes in variants" in err
    assert err.rstrip().endswith(
        f"; if --set gave '{name}$Value', the shell took '$Value' from it: quote it in single quotes, "
        f"--set 'transforms.m.type={name}$Value'"
    )


def test_the_same_value_in_the_file_gets_no_quoting_hint(pipeline, capsys, tmp_path):
    text = (tmp_path / "p.properties").read_text().replace("MaskField$Value", "MaskField")
    (tmp_path / "p.properties").write_text(text)
    assert main(["validate", pipeline]) == EXIT_INVALID
    err = capsys.readouterr().err
    assert "(it comes in variants, one for each part of the record: MaskField$Key, MaskField$Value)" in err
    assert "quote it" not in err
