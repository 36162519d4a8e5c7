"""Benchmarking: one cell timed honestly, sweeps, their JSON document and history, reference GPU series."""
