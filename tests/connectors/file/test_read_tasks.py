"""Reading files in the pipeline's Python tasks gives the records Spark's readers give."""

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from connectors.file._splits import list_files
from connectors.file.formats import FORMATS, ReadOptions
from smt.batch import KAFKA_ARROW_SCHEMA
from smt.connector import SOURCE_ERROR_COLUMN
from smt.errors import SmtError
from tests.connectors.file.test_formats import RECORDS, as_tuples, records_df

pytestmark = pytest.mark.spark


def plan(fmt: str, path, topic="t", parallelism=2, max_partition_bytes=128 << 20):
    return FORMATS[fmt].read_tasks(
        ReadOptions(str(path), topic), list_files(str(path)), parallelism, max_partition_bytes
    )


def read_in_python(fmt: str, path, topic="events", parallelism=2, max_partition_bytes=128 << 20):
    tasks = plan(fmt, path, topic, parallelism, max_partition_bytes)
    batches = [batch for task in tasks for batch in task.batches(max_rows=2)]
    assert all(batch.schema == KAFKA_ARROW_SCHEMA and batch.num_rows <= 2 for batch in batches)
    return tasks, pa.Table.from_batches(batches, KAFKA_ARROW_SCHEMA).to_pylist()


def test_text_lines_match_spark_text_reader_and_offsets_are_unique(spark, tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    lines = [f"line {i} {'x' * (i % 7)}" for i in range(300)]
    (folder / "a.txt").write_text("\n".join(lines[:200]) + "\n", encoding="utf-8")
    (folder / "b.txt").write_text("\n".join(lines[200:]), encoding="utf-8")  # no final line break
    (folder / "_SUCCESS").write_text("")
    # Tiny pieces: files are cut mid-line and every line must still be read once.
    tasks, rows = read_in_python("text", folder, max_partition_bytes=500)
    assert len(tasks) > 2
    spark_rows = FORMATS["text"].read(spark, ReadOptions(str(folder), "events")).collect()
    assert sorted(r["value"] for r in rows) == sorted(bytes(r["value"]) for r in spark_rows)
    assert len({r["offset"] for r in rows}) == len(lines)
    assert {(r["key"], r["topic"], r["partition"], r["timestampType"], len(r["headers"])) for r in rows} == {
        (None, "events", 0, 0, 0)
    }
    assert len({r["timestamp"] for r in rows}) == 1


def test_spark_text_reader_keeps_line_bytes_as_the_python_tasks_do(spark, tmp_path):
    """\\r\\n and \\n end lines, a lone \\r does not, and bytes that are not UTF-8 stay as they are."""
    folder = tmp_path / "in"
    folder.mkdir()
    content = b"crlf\r\nlone\rcr\n\ninvalid \xff\xfe utf-8\r\n\xc3\xa9t\xc3\xa9\nlast\r"
    (folder / "a.txt").write_bytes(content)
    _, rows = read_in_python("text", folder)
    spark_rows = FORMATS["text"].read(spark, ReadOptions(str(folder), "events")).collect()
    expected = [b"crlf", b"lone\rcr", b"", b"invalid \xff\xfe utf-8", "été".encode(), b"last"]
    assert [r["value"] for r in rows] == expected
    assert sorted(bytes(r["value"]) for r in spark_rows) == sorted(expected)


def test_parquet_records_match_spark_parquet_reader(spark, tmp_path):
    out = str(tmp_path / "pq")
    FORMATS["parquet"].write(records_df(spark), out, "errorifexists")
    _, rows = read_in_python("parquet", out)
    mine = sorted(
        (
            (
                r["key"],
                r["value"],
                r["topic"],
                r["partition"],
                r["offset"],
                r["timestampType"],
                [(h["key"], h["value"]) for h in r["headers"]],
            )
            for r in rows
        ),
        key=lambda r: r[4],
    )
    theirs = [(*r[:5], r[6], r[7]) for r in as_tuples(FORMATS["parquet"].read(spark, ReadOptions(out, "t")))]
    assert mine == theirs
    assert len(rows) == len(RECORDS)


def test_parquet_with_only_values_takes_the_source_topic_and_no_headers(tmp_path):
    pq.write_table(pa.table({"value": [b"a", None], "topic": ["kept", None]}), tmp_path / "v.parquet")
    _, rows = read_in_python("parquet", tmp_path / "v.parquet", topic="default")
    assert [(r["value"], r["topic"], r["headers"], r["offset"]) for r in rows] == [
        (b"a", "kept", [], None),
        (None, "default", [], None),
    ]


def test_a_corrupt_parquet_file_is_named_when_planning(tmp_path):
    (tmp_path / "good.parquet").write_bytes(b"")
    pq.write_table(pa.table({"value": [b"a"]}), tmp_path / "good.parquet")
    (tmp_path / "bad.parquet").write_bytes(b"not parquet" * 20)
    with pytest.raises(SmtError, match=r"source\.path: cannot read Parquet files at '.*': .*bad\.parquet: "):
        plan("parquet", tmp_path)


def test_a_parquet_column_of_an_unusable_type_is_named_when_planning(tmp_path):
    pq.write_table(pa.table({"value": [b"a"], "partition": [[1, 2]]}), tmp_path / "odd.parquet")
    with pytest.raises(
        SmtError,
        match=r"Parquet file '.*odd\.parquet': column 'partition' of type "
        r"list<element: int64> cannot be read as int32",
    ):
        plan("parquet", tmp_path)


@pytest.mark.parametrize("fmt", ["avro"])
def test_formats_without_a_python_reader_use_spark(tmp_path, fmt):
    (tmp_path / "x").write_text("{}")
    assert plan(fmt, tmp_path) is None


def test_a_parquet_value_that_does_not_fit_its_field_names_the_file(tmp_path):
    pq.write_table(pa.table({"value": [b"a"], "partition": pa.array([2**40], pa.int64())}), tmp_path / "big.parquet")
    (task,) = plan("parquet", tmp_path)
    with pytest.raises(
        SmtError,
        match=r"Parquet file '.*big\.parquet': cannot read its rows as records: Integer value 1099511627776 not in range",
    ):
        list(task.batches(10))


@pytest.mark.parametrize(
    "settings, reads_in_python",
    [
        ({"format": "text"}, True),
        ({"format": "parquet"}, True),
        ({"format": "text", "reader": "spark"}, False),
        ({"format": "jsonl"}, True),
        ({"format": "jsonl", "reader": "spark"}, False),
        ({"format": "text", "path": "GLOB"}, False),
    ],
)
def test_the_file_source_reads_in_python_where_it_can(spark, tmp_path, settings, reads_in_python):
    from connectors.file import FileSource

    pq.write_table(pa.table({"value": [b"a"]}), tmp_path / "a.parquet")
    source = FileSource()
    path = str(tmp_path / "*.parquet") if settings.get("path") == "GLOB" else str(tmp_path)
    source.configure({**settings, "path": path})
    assert (source.read_tasks(spark) is not None) == reads_in_python


def test_a_pattern_that_matches_nothing_is_named(tmp_path):
    from connectors.file import FileSource

    with pytest.raises(SmtError, match=r"path: cannot read '.*\*\.txt': no file matches the pattern"):
        FileSource().configure({"path": str(tmp_path / "*.txt")})


@pytest.mark.parametrize(
    "setting, expected",
    [("134217728", 128 << 20), ("128m", 128 << 20), ("128MB", 128 << 20), ("1g", 1 << 30), ("600b", 600)],
)
def test_spark_byte_sizes_are_read_as_spark_reads_them(setting, expected):
    from connectors.file.source import _bytes

    assert _bytes(setting) == expected


def test_a_byte_size_spark_would_refuse_is_named():
    from connectors.file.source import _bytes

    with pytest.raises(SmtError, match=r"spark\.sql\.files\.maxPartitionBytes: not a byte size: 'lots'"):
        _bytes("lots")


def test_spark_jsonl_reader_cuts_lines_as_the_python_tasks_do(spark, tmp_path):
    """A jsonl line ends at \\n (the \\r of a \\r\\n dropped); a lone \\r stays inside it, for both readers: the
    compiled path may read jsonl with Spark (see connectors.file.source)."""
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.jsonl").write_bytes(b'{"value":"a"}\r\n{"value":"b"}\r{"value":"c"}\n{"key":"k","value":"d"}\n')
    batches = [batch for task in plan("jsonl", folder) for batch in task.batches(max_rows=100)]
    python = pa.Table.from_batches(batches).to_pylist()
    spark_rows = [row.asDict() for row in FORMATS["jsonl"].read(spark, ReadOptions(str(folder), "events")).collect()]

    def seen(rows):
        return sorted((bytes(r["key"] or b""), bytes(r["value"]), r[SOURCE_ERROR_COLUMN] is not None) for r in rows)

    assert seen(python) == seen(spark_rows)
    assert sorted(failed for _, _, failed in seen(python)) == [False, False, True]  # b\rc is one line, not JSON
