"""Data-parallel benchmarking: torchrun runs of N processes (each a ``rank``) checked against one device."""
