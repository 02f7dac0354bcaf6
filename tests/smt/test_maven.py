"""Resolving Java artifacts (with Apache Ivy, no Maven) into the project cache."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from smt import _ivy, maven
from smt.errors import SmtError
from smt.local.kafka import BROKER_BUNDLE


def cache_sharing_downloads(tmp_path):
    """An empty project cache whose Maven repository is the real one (nothing is downloaded twice)."""
    cache = tmp_path / "cache"
    cache.mkdir()
    repo = maven.cache_dir() / "maven-repo"
    repo.mkdir(parents=True, exist_ok=True)
    os.symlink(repo, cache / "maven-repo")
    return cache


def test_cache_dir_follows_xdg_cache_home(monkeypatch, tmp_path):
    monkeypatch.delenv("SMT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert maven.cache_dir() == tmp_path / "spark-smt"


def test_cache_dir_can_be_set_explicitly(monkeypatch, tmp_path):
    monkeypatch.setenv("SMT_CACHE_DIR", str(tmp_path / "elsewhere"))
    assert maven.cache_dir() == tmp_path / "elsewhere"


def test_broker_bundle_resolves_to_the_kafka_server_and_its_dependencies(maven_resolve):
    jars = maven_resolve(BROKER_BUNDLE)
    names = {jar.name for jar in jars}
    assert {"kafka_2.13-4.1.1.jar", "kafka-raft-4.1.1.jar", "kafka-storage-4.1.1.jar",
            "kafka-metadata-4.1.1.jar", "kafka-clients-4.1.1.jar", "log4j-slf4j-impl-2.24.3.jar"} <= names  # fmt: skip
    assert all(jar.is_file() for jar in jars)


def test_a_cached_bundle_needs_no_maven(monkeypatch, tmp_path, maven_resolve):
    maven_resolve(BROKER_BUNDLE)  # warm
    monkeypatch.setenv("PATH", str(tmp_path))  # no mvn to be found
    assert maven.resolve(BROKER_BUNDLE)


def test_a_bundle_whose_jar_vanished_is_resolved_again(monkeypatch, tmp_path, maven_resolve):
    bundle = maven.Bundle("just-jopt", (maven.Artifact("net.sf.jopt-simple", "jopt-simple", "5.0.4"),))
    cache = cache_sharing_downloads(tmp_path)
    first = maven_resolve(bundle, cache)
    assert [jar.name for jar in first] == ["jopt-simple-5.0.4.jar"]
    (cache / "maven" / "just-jopt" / "classpath.txt").write_text(str(tmp_path / "gone.jar"))
    assert maven_resolve(bundle, cache) == first


def test_missing_java_is_reported_with_the_bundle(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    bundle = maven.Bundle("not-cached", (maven.Artifact("org.example", "thing", "1.0"),))
    with pytest.raises(maven.MavenError, match=r"cannot fetch org\.example:thing:1\.0: 'java' is not on PATH"):
        maven.resolve(bundle, tmp_path / "cache")


def test_an_unknown_artifact_is_reported_with_its_coordinates(tmp_path, maven_resolve):
    cache = cache_sharing_downloads(tmp_path)
    bundle = maven.Bundle("no-such", (maven.Artifact("org.apache.kafka", "no-such-artifact-xyz", "0.0.1"),))
    with pytest.raises(
        maven.MissingArtifactError,
        match=r"(?s)could not resolve org\.apache\.kafka:no-such-artifact-xyz:0\.0\.1 from https://repo\.maven\.apache"
        r"\.org/maven2 \(Ivy exit 1\).*org\.apache\.kafka#no-such-artifact-xyz;0\.0\.1: not found",
    ):
        maven_resolve(bundle, cache)
    assert not (cache / "maven" / "no-such" / "classpath.txt").exists()


def test_published_versions_are_read_from_maven_central():
    versions = maven.published_versions("org.apache.kafka", "kafka-clients")
    assert {"3.9.0", "4.1.1"} <= set(versions)


def test_an_unknown_group_has_no_published_versions_to_list():
    with pytest.raises(maven.MavenError, match=r"cannot list the versions of org\.example\.nothing:thing at https://"):
        maven.published_versions("org.example.nothing", "thing")


RESOLVE_JOPT = textwrap.dedent("""
    import sys
    from pathlib import Path
    from smt import maven
    bundle = maven.Bundle("just-jopt", (maven.Artifact("net.sf.jopt-simple", "jopt-simple", "5.0.4"),))
    print("\\n".join(str(jar) for jar in maven.resolve(bundle, Path(sys.argv[1]))))
""")


def java_only_path(tmp_path):
    """A PATH holding a ``java`` launcher and nothing else (no ``mvn``)."""
    java = shutil.which("java")
    assert java, "these tests need Java"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    os.symlink(os.path.realpath(java), bin_dir / "java")
    return str(bin_dir)


def resolve_in_subprocess(cache, path, home):
    env = {**os.environ, "PATH": path, "HOME": str(home)}
    env.pop("M2_HOME", None)
    return subprocess.run([sys.executable, "-c", RESOLVE_JOPT, str(cache)], env=env, capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip


def unreachable_mirror_home(tmp_path):
    """A home whose Maven settings send every download to a closed port on loopback."""
    home = tmp_path / "home-offline"
    (home / ".m2").mkdir(parents=True)
    (home / ".m2" / "settings.xml").write_text(
        '<settings xmlns="http://maven.apache.org/SETTINGS/1.0.0"><mirrors><mirror><id>down</id>'
        "<mirrorOf>central</mirrorOf><url>http://127.0.0.1:9/maven2</url></mirror></mirrors></settings>"
    )
    return home


@pytest.mark.timeout(180)
def test_a_fresh_cache_is_filled_with_only_java_on_path_and_then_works_offline(tmp_path, maven_resolve):
    cache = tmp_path / "fresh-cache"
    first = resolve_in_subprocess(cache, java_only_path(tmp_path), tmp_path / "home")
    assert first.returncode == 0, first.stderr
    jar = cache / "maven-repo" / "net" / "sf" / "jopt-simple" / "jopt-simple" / "5.0.4" / "jopt-simple-5.0.4.jar"
    assert first.stdout.split() == [str(jar)]
    assert jar.stat().st_size > 10_000
    # Cached: neither Java nor the network (every download would go to a closed port) is touched.
    again = resolve_in_subprocess(cache, str(tmp_path / "empty-bin"), unreachable_mirror_home(tmp_path))
    assert again.returncode == 0, again.stderr
    assert again.stdout.split() == [str(jar)]


@pytest.mark.timeout(120)
def test_a_mirror_from_maven_settings_is_where_jars_are_fetched(tmp_path, maven_resolve):
    failed = resolve_in_subprocess(tmp_path / "cache", java_only_path(tmp_path), unreachable_mirror_home(tmp_path))
    assert failed.returncode != 0
    assert "could not resolve net.sf.jopt-simple:jopt-simple:5.0.4 from http://127.0.0.1:9/maven2 (mirror from " in (
        failed.stderr
    )


def test_maven_settings_give_the_mirror_of_central_and_the_active_proxy(tmp_path):
    settings = tmp_path / "settings.xml"
    settings.write_text(
        '<settings xmlns="http://maven.apache.org/SETTINGS/1.0.0">'
        "<mirrors><mirror><mirrorOf>other-repo</mirrorOf><url>https://wrong.example</url></mirror>"
        "<mirror><mirrorOf>external:*,!foo</mirrorOf><url>https://nexus.example/central/</url></mirror></mirrors>"
        "<proxies><proxy><active>false</active><host>off.example</host></proxy>"
        "<proxy><host>proxy.example</host><port>3128</port><nonProxyHosts>localhost</nonProxyHosts></proxy></proxies>"
        "</settings>"
    )
    read = _ivy._read_settings(settings)
    assert read.central == "https://nexus.example/central"
    assert _ivy.proxy_properties(read) == [
        "-Dhttp.proxyHost=proxy.example", "-Dhttp.proxyPort=3128",
        "-Dhttps.proxyHost=proxy.example", "-Dhttps.proxyPort=3128",
        "-Dhttp.nonProxyHosts=localhost",
    ]  # fmt: skip


def test_a_broken_settings_file_is_named(tmp_path):
    settings = tmp_path / "settings.xml"
    settings.write_text("<settings><mirrors>")
    with pytest.raises(SmtError, match=r"settings\.xml: not a readable Maven settings\.xml"):
        _ivy._read_settings(settings)
