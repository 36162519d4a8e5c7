"""The Benchmark page's History and class board, and the teacher's class controls."""
