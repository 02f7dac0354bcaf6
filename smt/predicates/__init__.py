"""Kafka Connect's built-in predicates."""
