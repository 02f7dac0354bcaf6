"""Every ``properties`` block of README.md and of every docs/*.md page validates as pasted (#34 item 5).

A block is loaded as Java reads a ``.properties`` file: a comment after a
value is part of the value, so none may hold `` #``.  Then it goes through
the config loader as a pipeline: a fragment (no ``source=``/``sink=``) on top
of a small file-to-console pipeline.  The only problems allowed are files
the reader makes first (a Wasm module to build, a secrets folder): a key
whose path does not exist on this machine.
"""

from __future__ import annotations

import re
import shutil
import textwrap
from pathlib import Path

import pytest

from smt.errors import ConfigError
from smt.pipeline import PipelineSpec
from smt.properties import parse_properties

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"^( *)```properties\n(.*?)^\1```", re.S | re.M)
#: The inputs the documented pipelines read, from the examples they come from.
INPUTS = [
    ROOT / "examples" / "quickstart" / "events.jsonl",
    ROOT / "examples" / "tables" / "orders.jsonl",
    ROOT / "examples" / "tables" / "customers-changes.jsonl",
]
FRAGMENT_BASE = {"source": "file", "source.path": "in.txt", "sink": "console"}


def blocks() -> list[tuple[str, str]]:
    found = []
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        for match in _BLOCK.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append((f"{document.name}:{line}", textwrap.dedent(match.group(2))))
    return found


BLOCKS = blocks()


@pytest.fixture
def folder(tmp_path) -> Path:
    for source in INPUTS:
        shutil.copy(source, tmp_path / source.name)
    (tmp_path / "in.txt").write_text("a record\n", encoding="utf-8")
    return tmp_path


#: The pages whose examples moved out of the README (#33 item 6), each still checked here.
PAGES_WITH_BLOCKS = ["README.md", "pipelines.md", "wasm.md", "kafka.md", "tables.md", "cdc.md"]


def test_the_documents_have_blocks_to_check():
    checked = {name.split(":")[0] for name, _ in BLOCKS}
    assert [page for page in PAGES_WITH_BLOCKS if page not in checked] == []
    assert len(BLOCKS) >= 13


@pytest.mark.parametrize("name, block", BLOCKS, ids=[name for name, _ in BLOCKS])
def test_no_value_carries_a_comment(name, block):
    props = parse_properties(block, name)
    assert {k: v for k, v in props.items() if re.search(r"[ \t]#", v)} == {}


@pytest.mark.parametrize("name, block", BLOCKS, ids=[name for name, _ in BLOCKS])
def test_each_block_passes_the_config_loader(name, block, folder):
    props = dict(parse_properties(block, name))
    if "source" not in props and "sink" not in props:
        props = {**FRAGMENT_BASE, **props}
    try:
        PipelineSpec.from_properties(props, base_dir=str(folder))
    except ConfigError as exc:
        unexpected = [str(p) for p in exc.problems if not _names_a_missing_path(props.get(p.key), folder)]
        assert unexpected == []


def _names_a_missing_path(value, folder: Path) -> bool:
    return isinstance(value, str) and "/" in value and not (folder / value).exists()


def test_a_comment_after_a_value_gets_a_hint(folder):
    props = {**FRAGMENT_BASE, "spark.master": "local[*]             # any spark.* key goes to the SparkSession"}
    with pytest.raises(
        ConfigError,
        match=r"^spark\.master: not a Spark master URL: 'local\[\*\] +# any spark\.\* key .*'; use local.*; "
        r"note: \.properties files have no inline comments, so everything after '=' is the value, ' #\.\.\.' "
        r"included: put the comment on a line of its own$",
    ):
        PipelineSpec.from_properties(props, base_dir=str(folder))


def test_a_value_without_a_comment_gets_no_hint(folder):
    with pytest.raises(ConfigError, match=r"not a Spark master URL") as refused:
        PipelineSpec.from_properties({**FRAGMENT_BASE, "spark.master": "local[x]#1"}, base_dir=str(folder))
    assert "inline comments" not in str(refused.value)
