"""smt.python_worker: a worker's zip importers skip unchanged archives, and still see changed ones.

Each case runs in a fresh interpreter: :func:`prepare_worker` changes the process's import system.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = textwrap.dedent(
    """
    import importlib, os, sys, zipfile
    from smt.python_worker import prepare_worker

    archive = sys.argv[1]
    sys.path.insert(0, archive)
    import first_module
    prepare_worker()
    importer = sys.path_importer_cache[archive]
    print("class", type(importer).__name__)
    directory = importer._files
    importlib.invalidate_caches()
    print("unchanged read again", importer._files is not directory)

    with zipfile.ZipFile(archive, "w") as out:
        out.writestr("first_module.py", "VALUE = 1\\n")
        out.writestr("second_module.py", "VALUE = 2\\n")
    stat = os.stat(archive)
    os.utime(archive, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    importlib.invalidate_caches()
    import second_module
    print("changed seen", second_module.VALUE)
    """
)


def test_an_unchanged_archive_is_not_read_again_and_a_changed_one_is(tmp_path):
    archive = tmp_path / "modules.zip"
    with zipfile.ZipFile(archive, "w") as out:
        out.writestr("first_module.py", "VALUE = 1\n")
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(archive)],
        capture_output=True, text=True, check=False, env={**os.environ, "PYTHONPATH": ROOT},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "class _UnchangedArchiveImporter",
        "unchanged read again False",
        "changed seen 2",
    ]
