"""Debezium's single message transforms, under Debezium's class names and with Debezium 3.6.1's semantics."""
