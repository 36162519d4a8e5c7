"""The hosted server's web layer: which host names it answers to, page addresses in any case."""
