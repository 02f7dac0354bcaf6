"""The complete user test file of docs/testing.md, run with pytest in a folder outside this project."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[3] / "docs" / "testing.md"
MARKER = "<!-- tested by tests/smt/testing/test_readme_example.py -->"


def page_test_file() -> str:
    text = PAGE.read_text(encoding="utf-8")
    found = re.search(re.escape(MARKER) + r"\n```python\n(.*?)```", text, re.S)
    assert found, f"docs/testing.md has no python block after {MARKER}"
    return found.group(1)


@pytest.mark.spark
def test_the_documented_test_file_passes_as_a_user_runs_it(tmp_path):
    (tmp_path / "test_payments.py").write_text(page_test_file(), encoding="utf-8")
    # No conftest, no PYTHONPATH: the plugin must come from the installed package's entry point.
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_payments.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=900)  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "2 passed" in done.stdout
