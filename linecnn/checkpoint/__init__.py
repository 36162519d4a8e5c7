"""A run's model and history as files (``model_file``, ``history``), read back with ``checks``."""
