"""The Benchmark page's "Where the time goes": fixed per-step costs against work that grows."""
