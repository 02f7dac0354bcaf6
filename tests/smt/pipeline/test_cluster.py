"""A Wasm pipeline on a Spark standalone cluster (master + two workers on loopback).

The executors are other processes started without our PYTHONPATH, so the
pipeline only works if the runner ships the project's code, and the pickled
processor carries the Wasm module's bytes, the built-in transforms and the
converters with their settings.
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

#: Upper-cases the ASCII letters of the value it is given (get_value/set_value of the ABI).
TO_UPPER_WAT = """(module
  (import "env" "get_value" (func $get_value (result i64)))
  (import "env" "set_value" (func $set_value (param i32 i32)))
  (memory (export "memory") 1)
  (global $bump (mut i32) (i32.const 1024))
  (func (export "alloc") (param $n i32) (result i32)
    (local $p i32)
    (local.set $p (global.get $bump))
    (global.set $bump (i32.add (local.get $p) (local.get $n)))
    (if (i32.gt_u (global.get $bump) (i32.shl (memory.size) (i32.const 16)))
      (then (drop (memory.grow (i32.add (i32.shr_u (global.get $bump) (i32.const 16)) (i32.const 1))))))
    (local.get $p))
  (func (export "dealloc") (param i32 i32))
  (func (export "to_upper") (local $v i64) (local $p i32) (local $n i32) (local $i i32) (local $c i32)
    (global.set $bump (i32.const 1024))
    (local.set $v (call $get_value))
    (local.set $p (i32.wrap_i64 (i64.shr_u (local.get $v) (i64.const 32))))
    (local.set $n (i32.wrap_i64 (local.get $v)))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $c (i32.load8_u (i32.add (local.get $p) (local.get $i))))
      (if (i32.and (i32.ge_u (local.get $c) (i32.const 97)) (i32.le_u (local.get $c) (i32.const 122)))
        (then (i32.store8 (i32.add (local.get $p) (local.get $i)) (i32.sub (local.get $c) (i32.const 32)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (call $set_value (local.get $p) (local.get $n))))
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with LocalSparkCluster(tmp_path_factory.mktemp("spark-cluster"), workers=2, cores=1, memory="1g") as running:
        yield running


def write_inputs(directory):
    directory.mkdir()
    for part in range(4):
        with open(directory / f"part{part}.jsonl", "w", encoding="utf-8") as handle:
            for user in USERS[part * 2 : part * 2 + 2]:
                value = json.dumps({"user": user, "email": f"{user}@example.com"})
                handle.write(json.dumps({"topic": "users", "offset": USERS.index(user), "value": value}) + "\n")


def test_pipeline_runs_on_standalone_executors(cluster, tmp_path, pytestconfig):
    write_inputs(tmp_path / "in")
    (tmp_path / "to_upper.wat").write_text(TO_UPPER_WAT, encoding="utf-8")
    pipeline = tmp_path / "cluster.properties"
    pipeline.write_text(
        f"spark.master={cluster.master_url}\n"
        f"spark.pyspark.python={sys.executable}\n"
        "spark.executor.memory=512m\nspark.executor.cores=1\nspark.cores.max=2\nspark.ui.enabled=false\n"
        "source=file\nsource.path=in\nsource.format=jsonl\n"
        "sink=file\nsink.path=out\nsink.format=jsonl\n"
        "value.converter=json\nvalue.converter.schemas.enable=false\nheader.converter=string\n"
        "transforms=mask,upper,tag\n"
        "transforms.mask.type=MaskField$Value\ntransforms.mask.fields=email\n"
        "transforms.upper.type=wasm\ntransforms.upper.module.path=to_upper.wat\n"
        "transforms.upper.function.name=to_upper\ntransforms.upper.value.converter=json\n"
        "transforms.upper.value.converter.schemas.enable=false\n"
        "transforms.tag.type=InsertHeader\ntransforms.tag.header=via\ntransforms.tag.value.literal=cluster\n",
        encoding="utf-8",
    )
    root = str(pytestconfig.rootpath)
    env = {**os.environ, "PYTHONPATH": root}
    run = subprocess.run(
        [sys.executable, "-m", "smt", "run", str(pipeline)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]

    records = []
    for path in glob.glob(str(tmp_path / "out" / "part-*")):
        with open(path, encoding="utf-8") as handle:
            records.extend(json.loads(line) for line in handle)
    assert sorted((r["offset"], json.loads(r["value"]), r["headers"]) for r in records) == [
        (i, {"USER": user.upper(), "EMAIL": ""}, [{"key": "via", "value": "cluster"}]) for i, user in enumerate(USERS)
    ]

    executor_dirs = glob.glob(str(cluster.work_dir / "worker-*" / "app-*" / "*"))
    assert executor_dirs, "no executor was launched on the workers"
    assert glob.glob(str(cluster.work_dir / "worker-*" / "app-*" / "*" / "spark-smt-*.zip")), (
        "the executors did not fetch the shipped project code"
    )
    logs = "".join(
        open(os.path.join(d, "stderr"), encoding="utf-8", errors="replace").read()
        for d in executor_dirs
        if os.path.exists(os.path.join(d, "stderr"))
    )
    assert "Finished task" in logs
