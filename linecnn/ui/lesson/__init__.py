"""The Lesson page's views: ``sections`` lays out the lesson, ``snippets`` shows and runs its code."""
