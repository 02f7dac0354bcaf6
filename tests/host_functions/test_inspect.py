"""``smt wasm inspect``: the host's view of a guest module, and the adapter the fast path generates."""

import wasmtime

from smt.cli import main
from tests.host_functions import wat_guests as g


def test_inspect_summarises_abi_imports_entries_and_what_the_fast_path_stages(tmp_path, capsys):
    module = tmp_path / "swap.wasm"
    module.write_bytes(wasmtime.wat2wasm(g.SWAP))

    assert main(["wasm", "inspect", str(module)]) == 0

    assert capsys.readouterr().out.splitlines() == [
        f"module: {module} ({module.stat().st_size} bytes)",
        "ABI: kafka-connect",
        "imports: env.get_key, env.get_value, env.set_key, env.set_value",
        "entry functions: swap",
        "name section: yes (function names in crash reports)",
        "fast path (swap): yes",
        "  reads: key, value",
        "  may change: key, value",
    ]


def test_inspect_adapter_prints_the_generated_module_which_compiles(tmp_path, capsys):
    module = tmp_path / "swap.wasm"
    module.write_bytes(wasmtime.wat2wasm(g.SWAP))

    assert main(["wasm", "inspect", str(module), "--adapter"]) == 0

    adapter = capsys.readouterr().out
    assert adapter.startswith("(module $smt_adapter\n")
    config = wasmtime.Config()
    config.wasm_multi_memory = True
    wasmtime.Module(wasmtime.Engine(config), adapter)


def test_inspect_adapter_asks_which_entry_when_there_are_several(kafka_connect_rust_guest, tmp_path, capsys):
    module = tmp_path / "functions.wasm"
    module.write_bytes(kafka_connect_rust_guest)

    assert main(["wasm", "inspect", str(module), "--adapter"]) == 1
    assert capsys.readouterr().err.strip() == (
        f"error: {module}: name the entry function with --function (one of: copy_header, header_to_key, "
        f"key_to_topic, to_upper, transform, value_to_key)"
    )
    assert main(["wasm", "inspect", str(module), "--adapter", "--function", "to_upper"]) == 0
    assert "(func $get_value (result i64)" in capsys.readouterr().out


def test_inspect_refuses_what_is_not_a_regular_file(capsys):
    assert main(["wasm", "inspect", "/dev/zero"]) == 1
    assert capsys.readouterr().err.strip() == (
        "error: cannot read WebAssembly module '/dev/zero': it is a character device, not a regular file"
    )
