"""Redpanda Data Transforms guests, run by the ``wasm`` transform.

A module importing ``redpanda_transform`` is detected as this ABI (see
:mod:`host_functions.guest_abi`); ``host_functions/ABI.md`` documents how it
is served.  Public API: :class:`RedpandaAbi`.
"""

from host_functions.redpanda._abi import RedpandaAbi

__all__ = ["RedpandaAbi"]
