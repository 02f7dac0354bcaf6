"""Reading module.path: what cannot be read is refused naming the key."""

import pytest

from host_functions.runtime.module_file import read_module
from smt.errors import ConfigError


def test_a_regular_file_that_cannot_be_read_names_the_key():
    with pytest.raises(
        ConfigError,
        match=r"transforms\.g\.module\.path: cannot read WebAssembly module '/proc/self/mem': Input/output error",
    ):
        read_module("/proc/self/mem", 1024, "transforms.g.")
