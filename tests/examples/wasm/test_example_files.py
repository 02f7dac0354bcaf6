"""Every example folder is complete: sources per language, a pipeline file that names what the
builder produces and what the guests export, and sample input."""

from pathlib import Path

import pytest
import wasmtime

from host_functions.sdk.build import output_path
from smt.pipeline import PipelineSpec
from tests.examples.wasm.conftest import EXAMPLES_DIR, example_properties, example_sources, languages_of, wasm_aliases

#: Kafka Connect ABI examples: a folder with its own pipeline file (other ABIs' examples have folders of their own)
EXAMPLES = sorted(path.name for path in EXAMPLES_DIR.iterdir() if (path / f"{path.name}.properties").is_file())


@pytest.fixture(scope="module")
def engine():
    """One engine with wasmtime's on-disk cache: Go modules (~2 MB) take seconds to compile."""
    config = wasmtime.Config()
    config.cache = True
    return wasmtime.Engine(config)


def test_the_examples_are_the_ones_the_issue_asks_for():
    assert EXAMPLES == ["filter_user_id", "header_to_key", "pii_mask", "split_array", "to_upper", "value_to_key"]


@pytest.mark.parametrize("example", EXAMPLES)
def test_each_example_has_c_zig_and_go_sources_a_pipeline_file_and_input(example):
    folder = EXAMPLES_DIR / example

    assert languages_of(example) == ["c", "go", "zig"]
    assert (folder / f"{example}.properties").is_file()
    assert (folder / "input.txt").read_text().strip()


@pytest.mark.parametrize("example", EXAMPLES)
def test_the_pipeline_file_runs_the_c_guest_where_the_builder_puts_it(example):
    props = example_properties(example)
    folder = EXAMPLES_DIR / example

    assert (props["source"], props["source.format"], props["sink"], props["sink.format"]) == (
        "file",
        "text",
        "file",
        "text",
    )
    assert props["source.path"] == str(folder / "input.txt")
    for alias in wasm_aliases(props):
        built_by = f"python -m host_functions.sdk examples/wasm/{example}/{example}.c -o examples/wasm/{example}/build"
        assert built_by in (folder / f"{example}.properties").read_text()
        assert Path(props[f"transforms.{alias}.module.path"]) == output_path(folder / f"{example}.c", folder / "build")


@pytest.mark.parametrize(("example", "language"), sorted(example_sources()))
def test_every_guest_exports_the_function_its_pipeline_names(engine, guest_modules, example, language):
    props = example_properties(example)
    module = wasmtime.Module.from_file(engine, str(guest_modules[(example, language)]))
    exports = {export.name for export in module.exports}

    for alias in wasm_aliases(props):
        assert props[f"transforms.{alias}.function.name"] in exports
    assert {"memory", "alloc", "dealloc", "smt_abi_version"} <= exports


def test_a_pipeline_file_validates_once_its_guest_is_built(tmp_path, guest_modules):
    # Copy the example so its relative module.path (build/...) points at a fresh build.
    folder = tmp_path / "to_upper"
    folder.mkdir()
    for name in ("to_upper.properties", "input.txt"):
        (folder / name).write_bytes((EXAMPLES_DIR / "to_upper" / name).read_bytes())
    (folder / "build").mkdir()
    (folder / "build" / "to_upper.c.wasm").write_bytes(guest_modules[("to_upper", "c")].read_bytes())

    spec = PipelineSpec.from_properties(folder / "to_upper.properties")

    assert [stage.alias for stage in spec.chain.stages] == ["upper"]
    assert spec.chain.stages[0].transform.config["module.path"] == str(folder / "build" / "to_upper.c.wasm")
