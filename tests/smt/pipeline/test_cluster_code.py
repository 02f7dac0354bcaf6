"""The code shipped to cluster executors: every project package, data files included, named by content."""

import zipfile

from smt.pipeline.cluster import PROJECT_PACKAGES, is_local_master, project_code_zip


def test_the_zip_holds_every_package_and_its_data_files(tmp_path):
    path = project_code_zip(str(tmp_path))
    names = set(zipfile.ZipFile(path).namelist())
    for package in PROJECT_PACKAGES:
        assert f"{package}/__init__.py" in names
    assert "connectors/file/kafka_record.avsc" in names
    assert "smt/pipeline/runner.py" in names
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]


def test_the_same_code_gives_the_same_zip(tmp_path):
    assert project_code_zip(str(tmp_path)) == project_code_zip(str(tmp_path))
    assert len(list(tmp_path.iterdir())) == 1


def test_local_masters_are_told_apart_from_cluster_masters():
    assert [is_local_master(m) for m in ("local", "local[2]", "local[*]", "spark://h:7077", "yarn", "k8s://x")] == [
        True,
        True,
        True,
        False,
        False,
        False,
    ]
