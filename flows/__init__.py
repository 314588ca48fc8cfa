"""Prefect flows: thin orchestration over the plain functions in warehouse/."""
