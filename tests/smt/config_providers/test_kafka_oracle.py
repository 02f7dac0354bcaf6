"""Our variable resolution against Kafka's own ConfigTransformer and providers, on generated values."""

from __future__ import annotations

import base64
import os
import random
import subprocess
from pathlib import Path

import pytest

from smt.config_providers import resolve_variables
from smt.errors import ConfigError

HERE = Path(__file__).parent
KAFKA = "org.apache.kafka.common.config.provider"
ENV = {"SMT_ORACLE_A": "alpha", "SMT_ORACLE_B": "b:}{$", "SMT_ORACLE_EMPTY": ""}


def b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def generated_values(allowed: Path, outside: Path, count: int, seed: int) -> list[str]:
    """Literal text with Kafka's special characters, and variables of every kind, resolvable or not."""
    pieces = [
        "${env:SMT_ORACLE_A}", "${env:SMT_ORACLE_B}", "${env:SMT_ORACLE_EMPTY}", "${env:SMT_ORACLE_MISSING}",
        "${env::SMT_ORACLE_A}", f"${{file:{allowed}/s.properties:user}}", f"${{file:{allowed}/s.properties:none}}",
        f"${{file:{outside}/s.properties:user}}", f"${{dir:{allowed}:token}}", f"${{dir:{allowed}:none}}",
        f"${{dir:{outside}:token}}", "${vault:x}", "${vault:p:x}", "${:x}", "${env:}", "${}", "$", "{", "}", ":",
        "${", "a", "é", " ", "${env:SMT_ORACLE_A", "$${env:SMT_ORACLE_A}}",
    ]  # fmt: skip
    rng = random.Random(seed)
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 6))) for _ in range(count)]


@pytest.fixture(scope="module")
def kafka_classpath(maven_resolve) -> str:
    from smt.local.kafka import BROKER_BUNDLE

    return os.pathsep.join(str(jar) for jar in maven_resolve(BROKER_BUNDLE))


def test_resolution_matches_kafkas_config_transformer(tmp_path, kafka_classpath, java, monkeypatch):
    allowed, outside = tmp_path / "allowed", tmp_path / "outside"
    for folder in (allowed, outside):
        folder.mkdir()
        (folder / "s.properties").write_text("user = ada\\\n  lovelace\n", encoding="utf-8")
        (folder / "token").write_text("t0k3n\n", encoding="utf-8")
    values = generated_values(allowed, outside, count=400, seed=15)
    (tmp_path / "env").write_text("".join(f"{b64(k)} {b64(v)}\n" for k, v in ENV.items()))
    (tmp_path / "values").write_text("".join(b64(v) + "\n" for v in values))

    # Its providers log what they refuse: keep their logs out of the answers on stdout.
    done = subprocess.run([java, "-Dlog4j2.level=OFF", "-cp", kafka_classpath, str(HERE / "ConfigTransformerOracle.java"),
                           str(tmp_path / "env"), str(allowed), str(tmp_path / "values")],
                          capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.split("\n")[:-1]
    kafka = [line if line.startswith("!") else base64.b64decode(line).decode("utf-8") for line in lines]

    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    providers = {"config.providers": "env,file,dir",
                 "config.providers.env.class": f"{KAFKA}.EnvVarConfigProvider",
                 "config.providers.env.param.allowlist.pattern": "SMT_ORACLE_.*",
                 "config.providers.file.class": f"{KAFKA}.FileConfigProvider",
                 "config.providers.file.param.allowed.paths": str(allowed),
                 "config.providers.dir.class": f"{KAFKA}.DirectoryConfigProvider",
                 "config.providers.dir.param.allowed.paths": str(allowed)}  # fmt: skip
    assert len(kafka) == len(values)
    mismatches = [(value, expected, ours) for value, expected in zip(values, kafka)
                  if (ours := _resolve(providers, value)) != expected]  # fmt: skip
    assert not mismatches, mismatches[:5]
    assert any(k.startswith("!") for k in kafka) and any(v != k for v, k in zip(values, kafka))


def _resolve(providers: dict[str, str], value: str) -> str:
    """Our value, or "!" and the reason as Kafka words it."""
    try:
        return resolve_variables({**providers, "k": value}).values["k"]
    except ConfigError as exc:
        return "!" + exc.problems[0].reason.removeprefix("config provider 'env': ")
