"""The documentation: the site builds in MkDocs' strict mode, and what the pages show is true.

A shell block is *runnable* when the line before its opening fence is exactly
``<!-- runnable -->``: the test runs it, each line a command, from the
project's root with the virtualenv's ``bin`` first on ``PATH``.  Mark only
blocks that are quick and need no network (``smt validate``, ``smt plugins``);
the others are for reading.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
RUNNABLE = "<!-- runnable -->"
_RUNNABLE_BLOCK = re.compile(r"^" + re.escape(RUNNABLE) + r"\n```(\w*)\n(.*?)^```", re.S | re.M)
#: (page, example file): the page shows the file as it is, so what a reader copies is what the tests run
#: (docs/kafka.md's example: tests/examples/test_payments_to_kafka.py).
SHOWN_AS_IS = [
    ("README.md", "examples/quickstart/quickstart.properties"),
    ("docs/cdc.md", "examples/tables/cdc-upsert-delta.properties"),
]


def runnable_blocks() -> list[tuple[str, str, str]]:
    """(``page:line``, the fence's language, the block's text) of every block marked runnable."""
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in _RUNNABLE_BLOCK.finditer(text):
            line = text.count("\n", 0, match.start()) + 2
            found.append((f"{page.relative_to(ROOT)}:{line}", match.group(1), match.group(2)))
    return found


BLOCKS = runnable_blocks()


def test_the_site_builds_in_strict_mode(tmp_path):
    # Strict: a broken link or anchor, a page missing from the nav, any warning fails the build.
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"),
         "--site-dir", str(tmp_path / "site")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "site" / "cdc" / "index.html").is_file()


def test_the_nav_lists_every_page_and_the_compatibility_page_among_them():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    listed = [next(iter(entry.values())) for entry in config["nav"]]
    assert sorted(listed) == sorted(page.name for page in DOCS.glob("*.md"))
    assert "kafka-connect-compatibility.md" in listed and "reference.md" in listed


@pytest.mark.parametrize("page, example", SHOWN_AS_IS)
def test_the_page_shows_the_example_file_as_it_is(page, example):
    shown = f"```properties\n{(ROOT / example).read_text(encoding='utf-8')}```"
    assert shown in (ROOT / page).read_text(encoding="utf-8")


def test_every_runnable_marker_opens_a_shell_block():
    markers = sum(page.read_text(encoding="utf-8").count(RUNNABLE) for page in PAGES)
    assert markers == len(BLOCKS) >= 1
    assert [(name, language) for name, language, _ in BLOCKS if language != "bash"] == []


@pytest.mark.parametrize("name, language, block", BLOCKS, ids=[name for name, _, _ in BLOCKS])
def test_each_runnable_block_runs(name, language, block):
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, f"{name}:\n{block}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
