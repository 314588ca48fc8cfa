"""Pandera (polars) models: the schema is the documentation of every table we accept."""
