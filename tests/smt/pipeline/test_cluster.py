"""A pipeline on a Spark standalone cluster (master + two workers on loopback).

The executors are other processes started without our PYTHONPATH, so the
pipeline only works if the runner ships the project's code, and the pickled
processor carries the converters, transforms and their settings.
"""

import glob
import json
import os
import subprocess
import sys

import pytest

from smt.local.spark_cluster import LocalSparkCluster

pytestmark = [pytest.mark.spark, pytest.mark.slow]

USERS = ["ann", "bob", "cyd", "dee", "eve", "fay", "gus", "hal"]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with LocalSparkCluster(tmp_path_factory.mktemp("spark-cluster"), workers=2, cores=1, memory="1g") as running:
        yield running


def write_inputs(directory):
    directory.mkdir()
    for part in range(4):
        with open(directory / f"part{part}.jsonl", "w", encoding="utf-8") as handle:
            for user in USERS[part * 2:part * 2 + 2]:
                value = json.dumps({"user": user, "email": f"{user}@example.com"})
                handle.write(json.dumps({"topic": "users", "offset": USERS.index(user), "value": value}) + "\n")


def test_pipeline_runs_on_standalone_executors(cluster, tmp_path, pytestconfig):
    write_inputs(tmp_path / "in")
    pipeline = tmp_path / "cluster.properties"
    pipeline.write_text(
        f"spark.master={cluster.master_url}\n"
        f"spark.pyspark.python={sys.executable}\n"
        "spark.executor.memory=512m\nspark.executor.cores=1\nspark.cores.max=2\nspark.ui.enabled=false\n"
        "source=file\nsource.path=in\nsource.format=jsonl\n"
        "sink=file\nsink.path=out\nsink.format=jsonl\n"
        "value.converter=json\nvalue.converter.schemas.enable=false\nheader.converter=string\n"
        "transforms=mask,tag\n"
        "transforms.mask.type=MaskField$Value\ntransforms.mask.fields=email\n"
        "transforms.tag.type=InsertHeader\ntransforms.tag.header=via\ntransforms.tag.value.literal=cluster\n",
        encoding="utf-8",
    )
    root = str(pytestconfig.rootpath)
    env = {**os.environ, "PYTHONPATH": root}
    run = subprocess.run([sys.executable, "-m", "smt", "run", str(pipeline)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]

    records = []
    for path in glob.glob(str(tmp_path / "out" / "part-*")):
        with open(path, encoding="utf-8") as handle:
            records.extend(json.loads(line) for line in handle)
    assert sorted((r["offset"], json.loads(r["value"]), r["headers"]) for r in records) == [
        (i, {"user": user, "email": ""}, [{"key": "via", "value": "cluster"}]) for i, user in enumerate(USERS)
    ]

    executor_dirs = glob.glob(str(cluster.work_dir / "worker-*" / "app-*" / "*"))
    assert executor_dirs, "no executor was launched on the workers"
    assert glob.glob(str(cluster.work_dir / "worker-*" / "app-*" / "*" / "spark-smt-*.zip")), \
        "the executors did not fetch the shipped project code"
    logs = "".join(open(os.path.join(d, "stderr"), encoding="utf-8", errors="replace").read()
                   for d in executor_dirs if os.path.exists(os.path.join(d, "stderr")))
    assert "Finished task" in logs
