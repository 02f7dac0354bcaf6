"""Kafka Connect's built-in transforms."""
