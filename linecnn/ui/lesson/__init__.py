"""The Lesson page's views."""
