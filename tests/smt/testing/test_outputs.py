"""output_lines reads what a file sink committed, and nothing else."""

from smt.testing import output_lines


def test_part_files_are_read_in_name_order_without_spark_bookkeeping(tmp_path):
    (tmp_path / "part-00001-b.txt").write_text("c\n", encoding="utf-8")
    (tmp_path / "part-00000-a.txt").write_text("a\nb\n", encoding="utf-8")
    (tmp_path / "_SUCCESS").write_text("")
    (tmp_path / ".part-00000-a.txt.crc").write_text("xx")
    assert output_lines(tmp_path) == ["a", "b", "c"]
