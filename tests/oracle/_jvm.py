"""The Kafka Connect oracle: KafkaConnectOracle.java, compiled once and run as one JVM.

The classes come from Maven Central (:data:`smt.local.kafka.CONNECT_BUNDLE`,
fetched by ``smt local fetch``; the Debezium oracle's JVM adds Debezium's own transforms,
:data:`DEBEZIUM_BUNDLE`, fetched by ``scripts/fetch-jars.sh``); ``javac`` compiles the oracle against them into
the project cache, keyed by a hash of the source and the classpath, so a
second session starts the JVM at once.  :meth:`Oracle.run` sends a list of
cases (JSON lines) and returns Kafka's answer to each, in order.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path

from smt import maven
from smt.local.kafka import CONNECT_BUNDLE

DEBEZIUM_VERSION = "3.6.1.Final"
#: Debezium's transforms (io.debezium.transforms.*), which since Debezium 3.6 live in
#: debezium-connect-plugins (debezium-core is only a pointer there), with their dependencies.
DEBEZIUM_BUNDLE = maven.Bundle(
    f"debezium-connect-plugins-{DEBEZIUM_VERSION}",
    (maven.Artifact("io.debezium", "debezium-connect-plugins", DEBEZIUM_VERSION),),
)


def _artifact_of(jar: Path) -> str:
    """``connect-api`` for ``connect-api-4.3.0.jar``: the name without its version."""
    return re.sub(r"-\d.*$", "", jar.stem)


def classpath(resolve, plugins: maven.Bundle | None = None) -> list[Path]:
    """Kafka Connect's jars at our Kafka version, then the jars of ``plugins`` that Connect lacks.

    Debezium 3.6.1 asks for Kafka 4.3's connect-api and kafka-clients; a worker loads the
    plugin on its own Connect classes, and ours are the version we reproduce (KAFKA_VERSION),
    so only the plugin's own code differs from the Kafka oracle's.
    """
    jars = resolve(CONNECT_BUNDLE)
    if plugins is None:
        return jars
    present = {_artifact_of(jar) for jar in jars}
    return jars + [jar for jar in resolve(plugins) if _artifact_of(jar) not in present]


SOURCE = Path(__file__).with_name("KafkaConnectOracle.java")
#: The time zone of a second oracle JVM: a worker outside UTC, where Kafka writes some texts in
#: its own zone (java.util.Date.toString, Values' date formats); +05:30 has no daylight saving.
ZONED = "Asia/Kolkata"
MAIN_CLASS = "KafkaConnectOracle"


def compile_oracle(resolve, plugins: maven.Bundle | None = None) -> tuple[Path, list[Path]]:
    """The compiled classes folder and the jars of its classpath (compiling when needed); ``plugins``
    adds a bundle of plugins to Kafka Connect's classes (see :func:`classpath`)."""
    jars = classpath(resolve, plugins)
    joined = os.pathsep.join(map(str, jars))
    digest = hashlib.sha256(SOURCE.read_bytes() + joined.encode()).hexdigest()[:16]
    classes = maven.cache_dir() / "oracle" / digest
    if not (classes / f"{MAIN_CLASS}.class").is_file():
        javac = shutil.which("javac")
        assert javac, "the Kafka Connect oracle needs javac (a JDK 17)"
        partial = classes.with_suffix(".partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        subprocess.run(
            [javac, "-nowarn", "-d", str(partial), "-cp", joined, str(SOURCE)],
            check=True,
            capture_output=True,
            text=True,
            timeout=300,
        )
        shutil.rmtree(classes, ignore_errors=True)
        os.replace(partial, classes)
    return classes, jars


class Oracle:
    """One JVM (``java``, the plugin's fixture) running KafkaConnectOracle for the whole test session, in
    ``time_zone``; ``resolve`` (the ``maven_resolve`` fixture) finds Kafka Connect's jars, and those
    of ``plugins`` (Debezium's, :data:`DEBEZIUM_BUNDLE`) when given."""

    def __init__(
        self, java: str, resolve, log_path: Path, time_zone: str = "UTC", plugins: maven.Bundle | None = None
    ) -> None:
        classes, jars = compile_oracle(resolve, plugins)
        self._log = open(log_path, "wb")
        self._process = subprocess.Popen(
            [
                java,
                "-Xmx512m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                f"-Duser.timezone={time_zone}",
                "-cp",
                os.pathsep.join([str(classes), *map(str, jars)]),
                MAIN_CLASS,
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
        )
        self.log_path = log_path
        self.cases_run = 0

    def run(self, cases: list[dict]) -> list[dict]:
        """Kafka's result for each case, in order."""
        lines = b"".join(json.dumps(case).encode() + b"\n" for case in cases)
        writer = threading.Thread(target=self._write, args=(lines,), daemon=True)
        writer.start()
        results = []
        for _ in cases:
            line = self._process.stdout.readline()
            if not line:
                raise RuntimeError(f"the Kafka Connect oracle stopped; see {self.log_path}")
            results.append(json.loads(line))
        writer.join()
        self.cases_run += len(cases)
        return results

    def _write(self, lines: bytes) -> None:
        self._process.stdin.write(lines)
        self._process.stdin.flush()

    def close(self) -> None:
        self._process.stdin.close()
        self._process.wait(timeout=30)
        self._log.close()
