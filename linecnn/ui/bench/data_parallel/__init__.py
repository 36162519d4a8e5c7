"""The Benchmark page's "Processes / GPUs": data-parallel runs through torchrun."""
