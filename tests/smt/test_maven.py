"""Resolving Java artifacts with Maven into the project cache."""

from __future__ import annotations

import os

import pytest

from smt import maven
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


def test_missing_maven_is_reported_with_the_bundle(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    bundle = maven.Bundle("not-cached", (maven.Artifact("org.example", "thing", "1.0"),))
    with pytest.raises(maven.MavenError, match=r"cannot fetch org\.example:thing:1\.0: 'mvn' is not on PATH"):
        maven.resolve(bundle, tmp_path / "cache")


def test_an_unknown_artifact_is_reported_with_its_coordinates(tmp_path, maven_resolve):
    cache = cache_sharing_downloads(tmp_path)
    bundle = maven.Bundle("no-such", (maven.Artifact("org.apache.kafka", "no-such-artifact-xyz", "0.0.1"),))
    with pytest.raises(
        maven.MissingArtifactError,
        match=r"Maven could not resolve org\.apache\.kafka:no-such-artifact-xyz:0\.0\.1 \(exit 1\)",
    ):
        maven_resolve(bundle, cache)
    assert not (cache / "maven" / "no-such" / "classpath.txt").exists()


def test_published_versions_are_read_from_maven_central():
    versions = maven.published_versions("org.apache.kafka", "kafka-clients")
    assert {"3.9.0", "4.1.1"} <= set(versions)


def test_an_unknown_group_has_no_published_versions_to_list():
    with pytest.raises(maven.MavenError, match=r"cannot list the versions of org\.example\.nothing:thing at https://"):
        maven.published_versions("org.example.nothing", "thing")
