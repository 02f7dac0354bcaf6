"""The Wasm runtime every ABI shares: engine, watchdog, sandbox, guest memory, retry policy.

Public within the project (the four ABI packages build on it); it imports no
ABI.  One module per concept:

- :mod:`.engine`: the process's engine, compiled-module cache and idle instances
- :mod:`.watchdog`: interrupts a guest call whose progress stalls past ``timeout.ms``
- :mod:`.sandbox`: bounded stores, WASI settings, ``Settings``, failures and trap messages
- :mod:`.retry`: ``RetryPolicy``, the one rule for running a call again on a fresh instance
- :mod:`.memory`: ``GuestMemory``, the bounds-checked view every ABI reads, writes and grows through
- :mod:`.staging`: a batch's Arrow buffers placed and copied into a guest's input memory
- :mod:`.record_bytes`, :mod:`.columns`: records as bytes and Arrow columns built from guest buffers
- :mod:`.single_entry`, :mod:`.module_file`, :mod:`.host_modules`, :mod:`.wasmtime_internals`

Nothing is imported here, so loading one module loads only what it needs.
"""
