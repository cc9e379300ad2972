"""Project memory: typed Markdown files in <workspace>/memory/, an index, and the prompt block."""
