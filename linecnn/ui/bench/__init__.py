"""The Benchmark page's views: the sweep form, the running job, results, references and history."""
