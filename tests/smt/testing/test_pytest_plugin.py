"""Our pytest plugin, exercised the way a user's test suite uses it (with pytester)."""

import pytest

pytest_plugins = ["pytester"]


@pytest.fixture
def user_tests(pytester, pytestconfig, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(pytestconfig.rootpath))
    # A user's project: its own transform registered through a plugin object.
    pytester.makepyfile(
        user_transform="""
        from smt import Transform
        from smt.plugins import hookimpl, load_plugins

        class Shout(Transform):
            name = "Shout"
            def apply(self, record):
                return record.replace(value=record.value.upper())

        class Plugin:
            @hookimpl
            def smt_transforms(self):
                return [Shout]

        def plugins():
            return load_plugins(entry_points=False, extra_plugins=[Plugin()])
        """
    )
    pytester.makeconftest("")
    return pytester


def _entry_point_installed() -> bool:
    from importlib.metadata import entry_points

    return any(ep.value == "smt.testing.plugin" for ep in entry_points(group="pytest11"))


def run(pytester, *args):
    # Installed, the plugin must load by its pytest11 entry point alone; from
    # a bare checkout, load it explicitly with the checkout on the path.
    if _entry_point_installed():
        return pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)
    return pytester.runpytest_subprocess("-p", "smt.testing.plugin", "-p", "no:cacheprovider", *args)


def test_make_record_has_defaults_and_overrides(user_tests):
    user_tests.makepyfile(
        """
        def test_defaults(make_record):
            r = make_record(value=b"v2", headers=[("h", b"1")])
            assert (r.topic, r.partition, r.offset, r.key, r.value) == ("test-topic", 0, 0, b"key", b"v2")
            assert r.headers == (("h", b"1"),)

        def test_it_can_fail(make_record):
            assert make_record().value == b"something else"
        """
    )
    result = run(user_tests)
    result.assert_outcomes(passed=1, failed=1)


def test_make_chain_from_dict_and_properties_text(user_tests):
    user_tests.makepyfile(
        """
        import user_transform

        def test_dict(make_chain, make_record):
            chain = make_chain({"transforms": "s", "transforms.s.type": "Shout"}, plugins=user_transform.plugins())
            assert [r.value for r in chain.apply(make_record(value="hi"))] == ["HI"]

        def test_text(make_chain, make_record):
            chain = make_chain("transforms = s\\ntransforms.s.type : Shout\\n", plugins=user_transform.plugins())
            assert [r.value for r in chain.apply(make_record(value="yo"))] == ["YO"]
        """
    )
    run(user_tests).assert_outcomes(passed=2)


def test_make_chain_reports_config_errors(user_tests):
    user_tests.makepyfile(
        """
        import pytest
        from smt import ConfigError

        def test_unknown(make_chain):
            with pytest.raises(ConfigError, match=r"transforms\\.x\\.type: unknown transform 'Nope'"):
                make_chain({"transforms": "x", "transforms.x.type": "Nope"})
        """
    )
    run(user_tests).assert_outcomes(passed=1)


@pytest.mark.spark
def test_spark_fixture_is_one_local_session(user_tests):
    user_tests.makepyfile(
        """
        def test_one(spark):
            assert spark.sparkContext.master == "local[2]"
            assert spark.conf.get("spark.sql.session.timeZone") == "UTC"
            assert spark.range(5).count() == 5

        def test_same(spark, smt_spark_conf):
            assert smt_spark_conf == {}
            assert spark.range(3).count() == 3
        """
    )
    run(user_tests).assert_outcomes(passed=2)


def test_tests_that_start_a_jvm_are_marked_spark_by_the_fixtures(user_tests):
    """-m "not spark" deselects every test that would start a JVM, marked by hand or not
    (through another fixture too), and the finer markers select each kind; collection only,
    so no JVM starts here."""
    user_tests.makepyfile(
        """
        import pytest

        @pytest.fixture
        def frame(spark):
            return spark.range(1)

        @pytest.fixture
        def oracle(java, maven_resolve):
            return java

        def test_direct(spark):
            pass

        def test_through_a_fixture(frame):
            pass

        def test_broker(kafka_broker):
            pass

        @pytest.mark.kafka
        def test_a_broker_of_its_own():
            pass

        def test_oracle(oracle):
            pass

        def test_resolves_jars(maven_resolve):
            pass

        def test_connect(connect_servers):
            pass

        def test_plain(make_record):
            pass

        @pytest.mark.parametrize("java, maven_resolve", [("a value", "not the fixtures")])
        def test_parametrized(java, maven_resolve):
            pass
        """
    )
    result = run(user_tests, "-m", "not spark", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["*test_plain*", "*test_parametrized*", "*2/9 tests collected (7 deselected)*"])
    user_tests.makeconftest(
        """
        def pytest_collection_finish(session):
            write = session.config.pluginmanager.get_plugin("terminalreporter").write_line
            for item in session.items:
                write(f"{item.name} is marked " + " ".join(sorted(m.name for m in item.iter_markers())))
            for line in session.config.getini("markers"):
                write(f"marker {line}")
        """
    )
    result = run(user_tests, "--collect-only", "-q")
    result.stdout.fnmatch_lines(
        [
            "test_direct is marked spark",
            "test_through_a_fixture is marked spark",
            "test_broker is marked kafka spark",
            "test_a_broker_of_its_own is marked kafka spark",
            "test_oracle is marked java_oracle spark",
            "test_resolves_jars is marked java_oracle spark",
            "test_connect is marked spark",
            "test_plain is marked ",
            "test_parametrized* is marked parametrize",
            "marker spark: starts a JVM: a Spark session, the local Kafka broker, or a Java oracle*",
            "marker kafka: needs the local Kafka broker*",
            "marker java_oracle: runs Java itself*",
        ]
    )


def test_a_missing_guest_toolchain_skips_naming_it_and_the_marker_selects_guest_builds(user_tests, monkeypatch):
    """A fixture that builds guests asks ``require_guest_toolchains`` first: where a toolchain is absent
    (here: a PATH with no go or cargo) its tests skip, naming it, instead of failing in the build; a
    hand-placed marker does the same, and ``-m "not guest_toolchain"`` leaves them out."""
    user_tests.makepyfile(
        """
        import pytest

        @pytest.fixture(scope="session")
        def go_guest(require_guest_toolchains):
            require_guest_toolchains("go")
            raise AssertionError("a guest build ran without its toolchain")

        def test_uses_a_go_guest(go_guest):
            pass

        @pytest.mark.guest_toolchain("zig", "rust")
        def test_marked_by_hand():
            raise AssertionError("ran without its toolchains")

        @pytest.mark.guest_toolchain("zig", "c")
        def test_with_toolchains_present():
            pass

        def test_plain():
            pass
        """
    )
    python_dir = user_tests.path / "python-only-bin"
    python_dir.mkdir()
    (python_dir / "python").symlink_to(__import__("sys").executable)
    monkeypatch.setenv("PATH", str(python_dir))

    result = run(user_tests, "-rs")
    result.assert_outcomes(passed=2, skipped=2)
    result.stdout.fnmatch_lines(
        [
            "*the go guest toolchain, Go 1.21 or newer, is missing: go not on PATH*",
            "*the rust guest toolchain, Rust from rustup with the wasm32-wasip1 and wasm32-unknown-unknown "
            "targets, is missing: cargo not on PATH*",
        ]
    )
    selected = run(user_tests, "-m", "not guest_toolchain", "--collect-only", "-q")
    selected.stdout.fnmatch_lines(["*test_plain*", "*1/4 tests collected (3 deselected)*"])


def test_an_unknown_guest_toolchain_is_refused_naming_the_known_ones():
    from host_functions.sdk.toolchains import missing

    with pytest.raises(ValueError, match=r"unknown guest toolchain 'cobol': expected one of c, zig, go, rust, wabt"):
        missing("cobol")
