"""proxy-wasm network filters (Kafka filters, as Cisco's PII filter), run by the ``wasm`` transform.

A module exporting ``proxy_abi_version_*`` is detected as this ABI (see
:mod:`host_functions.guest_abi`); records are fed to the filter as Kafka
Produce requests and read back from what it lets through.
``host_functions/ABI.md`` documents how.  Public API: :class:`ProxyWasmAbi`.
"""

from host_functions.proxy_wasm._abi import ProxyWasmAbi

__all__ = ["ProxyWasmAbi"]
