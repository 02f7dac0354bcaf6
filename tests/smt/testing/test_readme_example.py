"""The README's complete user test file, run with pytest in a folder outside this project."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[3] / "README.md"
MARKER = "<!-- tested by tests/smt/testing/test_readme_example.py -->"


def readme_test_file() -> str:
    text = README.read_text(encoding="utf-8")
    found = re.search(re.escape(MARKER) + r"\n```python\n(.*?)```", text, re.S)
    assert found, f"README.md has no python block after {MARKER}"
    return found.group(1)


@pytest.mark.spark
def test_the_readme_test_file_passes_as_a_user_runs_it(tmp_path):
    (tmp_path / "test_payments.py").write_text(readme_test_file(), encoding="utf-8")
    # No conftest, no PYTHONPATH: the plugin must come from the installed package's entry point.
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_payments.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=900)  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "2 passed" in done.stdout
