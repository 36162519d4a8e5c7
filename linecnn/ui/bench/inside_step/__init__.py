"""The Benchmark page's "Inside one step": torch.profiler's view of a training step."""
