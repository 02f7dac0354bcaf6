"""A secret from a config provider appears in no output, header or log file of a run.

The schema registry URL comes from ``${env:...}`` with ``user:password`` in it
(the credentials log in, as with Confluent's client); a record the registry
cannot decode is dead-lettered with context headers and logged by
``errors.log.*``.  Every file the run leaves (outputs, dead letters, metrics,
Spark's log) and what it prints are searched for the password.
"""

import json

import pytest

from tests.converters.registry_stand_in import RegistryStandIn
from tests.reliability.conftest import RUN_BOUND_SECONDS, context_header, smt_process

pytestmark = pytest.mark.spark

PASSWORD = "Sup3r-Secret-Pa55"
ORDER = json.dumps(
    {
        "type": "record",
        "name": "Order",
        "namespace": "shop",
        "fields": [{"name": "id", "type": "long"}, {"name": "item", "type": "string"}],
    }
)


@pytest.fixture
def registry():
    server = RegistryStandIn().start()
    server.credentials = f"admin:{PASSWORD}"
    yield server
    server.stop()


def test_a_registry_password_is_used_to_log_in_and_found_nowhere(tmp_path, registry, pytestconfig, monkeypatch):
    registry.register("events-value", ORDER)
    (tmp_path / "in").mkdir()
    # Confluent's wire format (magic 0, schema id 1) for ids 7, 8, 9; then schema id 99, which is unknown.
    good = [b"\x00\x00\x00\x00\x01" + bytes([2 * n]) + b"\x06pen" for n in (7, 8, 9)]
    (tmp_path / "in" / "events.txt").write_bytes(b"\n".join([*good, b"\x00\x00\x00\x00\x63\x0e\x06pen"]) + b"\n")
    pipeline = tmp_path / "pipeline.properties"
    pipeline.write_text(
        "config.providers=env\nconfig.providers.env.class=EnvVarConfigProvider\n"
        "source.path=in\nsource.format=text\nsink.path=out\nsink.format=jsonl\n"
        "value.converter=avro\nvalue.converter.schema.registry.url=${env:S_SR}\n"
        "errors.tolerance=all\nerrors.deadletterqueue.path=dlq\nerrors.deadletterqueue.context.headers.enable=true\n"
        "errors.log.enable=true\nerrors.log.include.messages=true\n",
        encoding="utf-8",
    )
    (tmp_path / "tmp").mkdir()
    monkeypatch.setenv("S_SR", registry.url.replace("http://", f"http://admin:{PASSWORD}@"))
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))  # Spark's log goes under it
    process = smt_process(
        ["run", str(pipeline), "--metrics-json", "metrics.json"], tmp_path, str(pytestconfig.rootpath)
    )
    out, err = process.communicate(timeout=RUN_BOUND_SECONDS)
    assert process.returncode == 0, err[-3000:]
    records = json.loads((tmp_path / "metrics.json").read_text())["records"]
    assert (records["written"], records["dead_lettered"]) == (3, 1), records

    [letter] = [
        json.loads(line) for part in (tmp_path / "dlq").glob("part-*") for line in part.read_text().splitlines()
    ]
    message = context_header(letter, "exception.message")
    assert f"schema registry answered 404 to GET {registry.url}/schemas/ids/99" in message, message
    [log] = list((tmp_path / "tmp" / "spark-smt-logs").iterdir())
    assert "Error encountered in VALUE_CONVERTER" in log.read_text(errors="replace"), "the record error was logged"
    searched = [path for path in tmp_path.rglob("*") if path.is_file()]
    assert len(searched) > 5
    for path in searched:
        assert PASSWORD.encode() not in path.read_bytes(), f"the password is in {path}"
    assert PASSWORD not in out + err
