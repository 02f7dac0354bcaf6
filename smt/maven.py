"""Java artifacts from Maven Central, resolved once and cached.

The local Kafka broker and Spark's Kafka connector are plain Maven artifacts
with their runtime dependencies.  A :class:`Bundle` names the top-level
coordinates; :func:`resolve` writes a throw-away POM for it, asks Maven for
the runtime classpath, and caches the answer.  Maven's downloads go to a local
repository under the user's cache directory (``$SMT_CACHE_DIR``, else
``${XDG_CACHE_HOME:-~/.cache}/spark-smt``), so a machine that ran once works
offline afterwards and CI can cache one folder.  ``settings.xml`` (mirrors,
proxies) is honoured as usual.
"""

from __future__ import annotations

import dataclasses
import fcntl
import os
import re
import shutil
import subprocess
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator
from xml.sax.saxutils import escape

from smt.errors import SmtError

__all__ = [
    "Artifact",
    "Bundle",
    "MavenError",
    "MissingArtifactError",
    "artifact_name",
    "cache_dir",
    "jars_spark_lacks",
    "published_versions",
    "resolve",
]

#: Pinned so resolution does not depend on the (old) plugin version Maven defaults to.
DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1"

#: Maven runs at most this long for one bundle (a cold fetch is well under it).
RESOLVE_TIMEOUT_S = 1200

MAVEN_CENTRAL = "https://repo.maven.apache.org/maven2"

# Maven's words for "this version is not in the repository" (cached or fresh).
_NOT_FOUND = re.compile(r"was not found in|Could not find artifact")


class MavenError(SmtError):
    """Maven is missing, or could not resolve a bundle; the message names it."""


class MissingArtifactError(MavenError):
    """The repository has no such artifact version (as opposed to a network or Maven failure)."""


@dataclasses.dataclass(frozen=True)
class Artifact:
    """One Maven coordinate."""

    group: str
    artifact: str
    version: str

    def __str__(self) -> str:
        return f"{self.group}:{self.artifact}:{self.version}"


@dataclasses.dataclass(frozen=True)
class Bundle:
    """Artifacts resolved together into one classpath; ``name`` is its cache folder."""

    name: str
    artifacts: tuple[Artifact, ...]

    def describe(self) -> str:
        return ", ".join(str(a) for a in self.artifacts)


def cache_dir() -> Path:
    """The project's cache folder (created on first use by whoever writes to it)."""
    explicit = os.environ.get("SMT_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "spark-smt"


def resolve(bundle: Bundle, cache: Path | None = None) -> list[Path]:
    """The jar files of ``bundle`` and its runtime dependencies.

    Runs Maven only when the cached classpath is missing or a jar of it has
    gone.  Concurrent callers (two test processes) wait for each other on a
    lock file.  Raises :class:`MavenError` naming the bundle when Maven is not
    installed or fails (the message ends with Maven's own last lines).
    """
    cache = cache or cache_dir()
    bundle_dir = cache / "maven" / bundle.name
    bundle_dir.mkdir(parents=True, exist_ok=True)
    classpath_file = bundle_dir / "classpath.txt"
    with _locked(bundle_dir / ".lock"):
        jars = _cached_classpath(classpath_file)
        if jars is None:
            _run_maven(bundle, bundle_dir, cache / "maven-repo", classpath_file)
            jars = _cached_classpath(classpath_file)
            if jars is None:
                raise MavenError(f"Maven produced no usable classpath for {bundle.describe()}")
    return jars


def _cached_classpath(classpath_file: Path) -> list[Path] | None:
    if not classpath_file.is_file():
        return None
    entries = [e for e in classpath_file.read_text().strip().split(os.pathsep) if e]
    jars = [Path(e) for e in entries]
    if not jars or not all(j.is_file() for j in jars):
        return None
    return jars


def _run_maven(bundle: Bundle, bundle_dir: Path, repo: Path, classpath_file: Path) -> None:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise MavenError(
            f"cannot fetch {bundle.describe()}: 'mvn' is not on PATH "
            "(install Maven, for example `apt-get install maven`)"
        )
    pom = bundle_dir / "pom.xml"
    pom.write_text(_pom(bundle))
    partial = classpath_file.with_suffix(".partial")
    command = [
        mvn, "-B", "-q", "-f", str(pom),
        f"-Dmaven.repo.local={repo}",
        f"{DEPENDENCY_PLUGIN}:build-classpath",
        f"-Dmdep.outputFile={partial}",
        "-Dmdep.includeScope=runtime",
    ]  # fmt: skip
    started = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=RESOLVE_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired as exc:
        raise MavenError(f"Maven did not resolve {bundle.describe()} within {RESOLVE_TIMEOUT_S} s") from exc
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        error = MissingArtifactError if _NOT_FOUND.search(done.stdout + done.stderr) else MavenError
        raise error(f"Maven could not resolve {bundle.describe()} (exit {done.returncode}); POM {pom}:\n{tail}")
    # Renamed into place only when complete, so an interrupted fetch is redone.
    os.replace(partial, classpath_file)
    (bundle_dir / "resolved-in-seconds.txt").write_text(f"{time.monotonic() - started:.1f}\n")


def published_versions(group: str, artifact: str, timeout_s: float = 30) -> list[str]:
    """The versions Maven Central lists for ``group:artifact`` (its ``maven-metadata.xml``)."""
    url = f"{MAVEN_CENTRAL}/{group.replace('.', '/')}/{artifact}/maven-metadata.xml"
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as response:
            metadata = response.read().decode("utf-8")
    except OSError as exc:
        raise MavenError(f"cannot list the versions of {group}:{artifact} at {url}: {exc}") from exc
    return re.findall(r"<version>([^<]+)</version>", metadata)


def _pom(bundle: Bundle) -> str:
    dependencies = "\n".join(
        "    <dependency>"
        f"<groupId>{escape(a.group)}</groupId>"
        f"<artifactId>{escape(a.artifact)}</artifactId>"
        f"<version>{escape(a.version)}</version>"
        "</dependency>"
        for a in bundle.artifacts
    )
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated by spark-smt to resolve {escape(bundle.name)}; safe to delete. -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.spark-smt</groupId>
  <artifactId>{escape(bundle.name)}</artifactId>
  <version>0</version>
  <packaging>pom</packaging>
  <dependencies>
{dependencies}
  </dependencies>
</project>
"""


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


_VERSIONED_JAR = re.compile(r"^(?P<name>.+?)-\d[^-]*(?:-[^-]+)*\.jar$")


def jars_spark_lacks(jars: list[Path]) -> list[str]:
    """Paths of the resolved ``jars`` whose artifact Spark does not already ship.

    Jars Spark ships (Scala, the Hadoop client, compression codecs) are left
    out, so the classpath holds one copy of each library.
    """
    shipped = _shipped_artifact_names()
    return [str(jar) for jar in jars if artifact_name(jar) not in shipped]


def artifact_name(jar: Path) -> str:
    """The artifact id of a jar in Maven's local repository (``.../<artifactId>/<version>/<file>``)."""
    return jar.parent.parent.name


def _shipped_artifact_names() -> set[str]:
    import pyspark

    spark_home = os.environ.get("SPARK_HOME")
    jars_dir = Path(spark_home) / "jars" if spark_home else Path(pyspark.__file__).parent / "jars"
    names = set()
    for jar in jars_dir.glob("*.jar"):
        match = _VERSIONED_JAR.match(jar.name)
        if match:
            names.add(match.group("name"))
    return names
