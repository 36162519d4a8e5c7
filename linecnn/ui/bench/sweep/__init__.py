"""The Benchmark page's sweep: its form, the running sweep, how it ended."""
