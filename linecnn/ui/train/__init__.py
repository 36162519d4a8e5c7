"""The Train page's views, one module per job; ``pages/1_Train.py`` wires them together."""
