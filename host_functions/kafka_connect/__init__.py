"""The Kafka Connect Wasm transformer's ABI (``abi=kafka-connect``): host functions per record part.

Two ways to serve a guest, proved equal by ``tests/host_functions/kafka_connect/test_paths_agree.py``:

- the fast path (:mod:`.fast_path`): a batch staged in linear memory, the host
  functions served by a generated Wasm *adapter* (:mod:`.adapter`, layout in
  :mod:`.layout` and ``ADAPTER.md``), one Wasm call per chunk of rows;
- the reference path (:mod:`.reference`): every host function a Python call.

:mod:`.abi` is the host-function table, :mod:`.guest` checks a module against
it, :mod:`.host_function` lets plugins add host functions.  Nothing is
imported here, so the adapter generator loads no Wasm stack.
"""
