"""The GPU lesson: its snippets, their comments in other languages, and running one for real."""
