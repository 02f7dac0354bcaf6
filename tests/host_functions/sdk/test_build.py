"""host_functions.sdk.build: compiling guests from source, caching, and its errors."""

import importlib.util
import os
from pathlib import Path

import pytest
import wasmtime

from host_functions.sdk import GuestBuildError, ToolchainMissingError, build_guest, supported_extensions

GUESTS = Path(__file__).parents[1] / "guests"


@pytest.mark.parametrize("language", ["c", "zig"])
def test_builds_a_module_with_the_sdk_exports_and_no_unused_imports(language, tmp_path, require_guest_toolchains):
    require_guest_toolchains(language)
    wasm = build_guest(GUESTS / f"noop.{language}", tmp_path)

    assert wasm == tmp_path / f"noop.{language}.wasm"
    module = wasmtime.Module.from_file(wasmtime.Engine(), str(wasm))
    exports = {export.name for export in module.exports}
    assert {"memory", "alloc", "dealloc", "smt_abi_version", "noop", "fail"} <= exports
    assert list(module.imports) == []


def test_builds_a_self_initializing_go_module_that_imports_only_wasi(tmp_path, require_guest_toolchains):
    require_guest_toolchains("go")
    wasm = build_guest(GUESTS / "noop.go", tmp_path)

    engine = wasmtime.Engine()
    module = wasmtime.Module.from_file(engine, str(wasm))
    exports = {export.name for export in module.exports}
    assert {"memory", "alloc", "dealloc", "smt_abi_version", "noop", "fail"} <= exports
    assert "_initialize" not in exports  # it became the start function
    assert {imported.module for imported in module.imports} == {"wasi_snapshot_preview1"}
    assert not (tmp_path / "go-module").exists()  # the scratch module went with the build
    # Without the rewrite this call traps in runtime.notInitialized: nobody called _initialize.
    store = wasmtime.Store(engine)
    store.set_wasi(wasmtime.WasiConfig())
    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    assert linker.instantiate(store, module).exports(store)["noop"](store) == 0


def test_c_zig_and_go_are_the_supported_languages():
    assert supported_extensions() == (".c", ".zig", ".go")


def test_an_up_to_date_module_is_not_rebuilt(tmp_path, require_guest_toolchains):
    require_guest_toolchains("c")
    first = build_guest(GUESTS / "noop.c", tmp_path)
    built_at = first.stat().st_mtime_ns

    second = build_guest(GUESTS / "noop.c", tmp_path)

    assert second == first
    assert second.stat().st_mtime_ns == built_at


def test_a_changed_source_is_rebuilt(tmp_path, require_guest_toolchains):
    require_guest_toolchains("c")
    source = tmp_path / "guest.c"
    source.write_text((GUESTS / "noop.c").read_text())
    wasm = build_guest(source, tmp_path / "out")
    source.write_text(source.read_text().replace('SMT_EXPORT("noop")', 'SMT_EXPORT("renamed")'))

    rebuilt = build_guest(source, tmp_path / "out")

    module = wasmtime.Module.from_file(wasmtime.Engine(), str(rebuilt))
    assert rebuilt == wasm
    assert "renamed" in {export.name for export in module.exports}


def test_compiler_errors_name_the_source_and_carry_the_compiler_output(tmp_path, require_guest_toolchains):
    require_guest_toolchains("c")
    with pytest.raises(
        GuestBuildError, match=r"(?s)cannot build .*broken\.c: .*clang exited with 1.*undeclared_identifier"
    ):
        build_guest(GUESTS / "broken.c", tmp_path)
    assert not (tmp_path / "broken.c.wasm").exists()


def test_an_unknown_extension_is_rejected(tmp_path):
    source = tmp_path / "guest.rs"
    source.write_text("fn main() {}")
    with pytest.raises(GuestBuildError, match=r"guest\.rs: unknown guest language '\.rs' \(known: \.c, \.zig, \.go\)"):
        build_guest(source, tmp_path)


def test_a_missing_source_is_reported(tmp_path):
    with pytest.raises(GuestBuildError, match=r"cannot build .*missing\.c: no such file"):
        build_guest(tmp_path / "missing.c", tmp_path)


def without_zig(monkeypatch):
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *args: None if name == "ziglang" else real_find_spec(name, *args)
    )


def test_a_missing_c_toolchain_says_what_to_install_at_user_level(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no clang, no wasm-ld
    without_zig(monkeypatch)
    with pytest.raises(
        ToolchainMissingError,
        match=r"noop\.c: no C guest toolchain is installed; install `python[\d.]* -m pip install ziglang` "
        r"\(user level, no root: its `zig cc` compiles C guests\), or clang and lld \(Debian/Ubuntu: "
        r"`sudo apt-get install clang lld`\)$",
    ):
        build_guest(GUESTS / "noop.c", tmp_path / "out")


@pytest.mark.skipif(importlib.util.find_spec("ziglang") is None, reason="the test environment installs ziglang")
def test_without_clang_a_c_guest_builds_with_zigs_clang(tmp_path, monkeypatch):
    # #34 item 9: a user who cannot install Debian's clang (no root) installs ziglang with pip.
    monkeypatch.setenv("PATH", str(tmp_path))
    wasm = build_guest(GUESTS / "noop.c", tmp_path / "out")
    module = wasmtime.Module.from_file(wasmtime.Engine(), str(wasm))
    assert {"memory", "alloc", "dealloc", "smt_abi_version", "noop", "fail"} <= {e.name for e in module.exports}
    assert list(module.imports) == []


def test_a_missing_zig_toolchain_names_the_package_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    without_zig(monkeypatch)
    with pytest.raises(
        ToolchainMissingError,
        match=r"noop\.zig: the Zig guest toolchain \(the `ziglang` PyPI package.*\) is not installed; "
        r"install it at user level: `python[\d.]* -m pip install ziglang`$",
    ):
        build_guest(GUESTS / "noop.zig", tmp_path / "out")


def test_a_missing_go_toolchain_says_where_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(
        ToolchainMissingError,
        match=r"noop\.go: the Go guest toolchain \(`go` 1\.24 or newer on PATH\) is not installed; "
        r"install it at user level from https://go\.dev/dl",
    ):
        build_guest(GUESTS / "noop.go", tmp_path / "out")


def test_the_command_line_builds_every_source_and_reports_failures(tmp_path, capsys, require_guest_toolchains):
    require_guest_toolchains("c", "zig")
    from host_functions.sdk.build import main

    assert main([str(GUESTS / "noop.c"), str(GUESTS / "noop.zig"), "-o", str(tmp_path)]) == 0
    assert capsys.readouterr().out.split() == [str(tmp_path / "noop.c.wasm"), str(tmp_path / "noop.zig.wasm")]

    assert main([str(GUESTS / "broken.c"), "-o", str(tmp_path)]) == 1
    assert "error: cannot build" in capsys.readouterr().err


@pytest.mark.parametrize("language", ["c", "zig", "go"])
def test_a_module_depends_on_its_source_its_sdk_and_the_builder(language):
    from host_functions.sdk import build as builder

    source = GUESTS / f"noop.{language}"
    inputs = builder._build_inputs(source, builder._toolchain_for(source))

    sdk = builder.SDK_DIR
    assert inputs[0] == source
    assert {path.parent for path in inputs[1:]} == {sdk / language, sdk, sdk.parent}
    assert {sdk / "build.py", sdk / "_wasm_start.py", sdk.parent / "wasm_sections.py"} <= set(inputs)
    assert (sdk.parent / "wasm_sections.py").is_file()


def test_an_input_newer_than_the_module_makes_it_stale(tmp_path, require_guest_toolchains):
    require_guest_toolchains("c")
    from host_functions.sdk import build as builder

    wasm = build_guest(GUESTS / "noop.c", tmp_path)
    newer_input = tmp_path / "input"
    newer_input.write_text("x")
    os.utime(wasm, ns=(0, newer_input.stat().st_mtime_ns - 10**9))

    assert not builder.is_fresh(wasm, [newer_input])
    assert builder.is_fresh(wasm, [])
