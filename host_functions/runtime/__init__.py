"""The Wasm runtime every ABI shares: engine, watchdog, sandbox, guest memory, retry policy.

Public within the project (the four ABI packages build on it); it imports no
ABI.  One module per concept:

- :mod:`.engine`: the process's engine, compiled-module cache and idle instances
- :mod:`.watchdog`: interrupts a guest call whose progress stalls past ``timeout.ms``
- :mod:`.sandbox`: bounded stores, WASI settings, ``Settings``, failures and trap messages
- :mod:`.staging`, :mod:`.memory`: staging input into guest memory, growing it
- :mod:`.record_bytes`, :mod:`.columns`: records as bytes and Arrow columns built from guest buffers
- :mod:`.single_entry`, :mod:`.module_file`, :mod:`.host_modules`, :mod:`.wasmtime_internals`

Nothing is imported here, so loading one module loads only what it needs.
"""
