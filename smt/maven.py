"""Java artifacts from Maven Central, resolved once and cached.

The local Kafka broker and Spark's Kafka connector are plain Maven artifacts
with their runtime dependencies.  A :class:`Bundle` names the top-level
coordinates; :func:`resolve` asks Apache Ivy (the resolver Spark itself uses
for ``spark.jars.packages``, run from the jar PySpark ships) for the runtime
classpath, and caches the answer.  Nothing beyond Python and Java is needed:
no Maven.  The jars land in a Maven-layout repository under the user's cache
directory (``$SMT_CACHE_DIR``, else ``${XDG_CACHE_HOME:-~/.cache}/spark-smt``),
so a machine that ran once works offline afterwards and CI can cache one
folder.  Mirrors and proxies of Maven's ``settings.xml`` are honoured (see
:mod:`smt._ivy`).
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

from smt import _ivy as ivy
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

#: Ivy runs at most this long for one bundle (a cold fetch is well under it).
RESOLVE_TIMEOUT_S = 1200

MAVEN_CENTRAL = "https://repo.maven.apache.org/maven2"

# Ivy's words for "this version is not in the repository".
_NOT_FOUND = re.compile(r"unresolved dependency: .*: not found|module not found")


class MavenError(SmtError):
    """A bundle could not be resolved (no Java, no network, a failing repository); the message names it."""


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

    Runs Ivy only when the cached classpath is missing or a jar of it has
    gone.  Concurrent callers (two test processes) wait for each other on a
    lock file.  Raises :class:`MavenError` naming the bundle when Java is
    missing or resolution fails (the message ends with Ivy's own last lines).
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
                raise MavenError(f"Ivy produced no usable classpath for {bundle.describe()}")
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
    """Resolves ``bundle`` with Apache Ivy (a JVM and Python are all it needs) into ``repo``."""
    java = shutil.which("java")
    if java is None:
        raise MavenError(f"cannot fetch {bundle.describe()}: 'java' is not on PATH (install a Java runtime)")
    ivy_jar = ivy.ivy_jar(bundle_dir.parent.parent)
    settings = bundle_dir / "ivysettings.xml"
    settings.write_text(ivy.settings_xml(bundle_dir.parent.parent / "ivy-cache", ivy.maven_settings()))
    module = bundle_dir / "ivy.xml"
    module.write_text(ivy.module_xml(bundle))
    partial = classpath_file.with_suffix(".partial")
    command = [
        java, *ivy.proxy_properties(ivy.maven_settings()), "-jar", str(ivy_jar),
        "-settings", str(settings), "-ivy", str(module), "-confs", "default",
        "-retrieve", f"{repo}/{ivy.MAVEN_LAYOUT}", "-cachepath", str(partial), "-warn",
    ]  # fmt: skip
    started = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=RESOLVE_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired as exc:
        raise MavenError(f"Ivy did not resolve {bundle.describe()} within {RESOLVE_TIMEOUT_S} s") from exc
    output = done.stdout + done.stderr
    if done.returncode != 0 or "UNRESOLVED DEPENDENCIES" in output or not partial.is_file():
        tail = "\n".join(line for line in output.strip().splitlines() if line.strip() and not line.startswith(".."))
        tail = "\n".join(tail.splitlines()[-15:])
        error = MissingArtifactError if _NOT_FOUND.search(output) else MavenError
        raise error(f"could not resolve {bundle.describe()} from {ivy.describe_repositories(ivy.maven_settings())} "
                    f"(Ivy exit {done.returncode}); module {module}:\n{tail}")  # fmt: skip
    # Ivy lists its cache's copies; the classpath names the same files in the Maven-layout repository.
    ivy_cache = bundle_dir.parent.parent / "ivy-cache"
    entries = [Path(e) for e in partial.read_text().strip().split(os.pathsep) if e]
    partial.write_text(os.pathsep.join(str(repo / e.relative_to(ivy_cache)) for e in entries))
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
