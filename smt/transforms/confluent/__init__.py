"""Confluent's single message transforms, under Confluent's class names, written from Confluent's documentation."""
