"""Building plug-ins from their folders: cached by content, refused when the folder is not a plug-in."""

import pytest

from host_functions.extism import build
from host_functions.sdk.build import GuestBuildError
from tests.host_functions.extism.conftest import PLUGIN_SOURCES


def test_a_folder_without_cargo_toml_or_go_mod_is_refused(tmp_path):
    with pytest.raises(
        GuestBuildError, match=r"cannot build .*: not an Extism plug-in folder \(no Cargo.toml or go.mod\)"
    ):
        build.build_plugin(tmp_path)


def test_an_unchanged_plugin_is_not_rebuilt_and_a_changed_one_is(tmp_path):
    source = tmp_path / "tiny" / "rust"
    (source / "src").mkdir(parents=True)
    (source / "Cargo.toml").write_text(
        '[package]\nname = "tiny"\nversion = "0.1.0"\nedition = "2021"\n\n[lib]\ncrate-type = ["cdylib"]\n'
    )
    (source / "src" / "lib.rs").write_text('#[no_mangle]\npub extern "C" fn transform() -> i32 { 0 }\n')
    cache = tmp_path / "cache"

    first = build.build_plugin(source, cache)
    assert build.build_plugin(source, cache) == first
    assert first.name.startswith("tiny-rust-") and first.read_bytes()[:4] == b"\0asm"

    (source / "src" / "lib.rs").write_text('#[no_mangle]\npub extern "C" fn transform() -> i32 { 1 }\n')
    second = build.build_plugin(source, cache)
    assert second != first and second.read_bytes() != first.read_bytes()


def test_the_command_line_copies_the_module_where_pipeline_files_expect_it(tmp_path, extism_plugins, capsys):
    assert build.main([str(PLUGIN_SOURCES["to_upper-rust"]), "-o", str(tmp_path)]) == 0
    assert (tmp_path / "to_upper-rust.wasm").read_bytes() == extism_plugins["to_upper-rust"].read_bytes()
    assert capsys.readouterr().out.strip() == str(tmp_path / "to_upper-rust.wasm")
