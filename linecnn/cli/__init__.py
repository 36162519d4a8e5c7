"""The command line, ``python -m linecnn``: ``main`` parses, one module per command."""
