"""The Benchmark page's results: device cards, the sweep chart, the table and the tables behind them."""
