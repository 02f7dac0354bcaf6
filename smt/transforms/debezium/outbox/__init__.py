"""Debezium's outbox pattern: EventRouter."""
