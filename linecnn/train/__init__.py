"""Training: configs, line images, the CNN, one epoch, a run (``trainer``), its budget, what it learned."""
