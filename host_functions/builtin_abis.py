"""The guest ABIs this package registers through the ``smt_guest_abis`` hook, declared once."""

from host_functions.extism import ExtismAbi
from host_functions.kafka_connect.guest_abi import KafkaConnectAbi
from host_functions.proxy_wasm import ProxyWasmAbi
from host_functions.redpanda import RedpandaAbi

__all__ = ["BUILTIN_ABIS"]

#: kafka-connect first: the default, for a module no other ABI claims.
BUILTIN_ABIS = (KafkaConnectAbi, RedpandaAbi, ExtismAbi, ProxyWasmAbi)
