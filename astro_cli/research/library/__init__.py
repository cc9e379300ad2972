"""The local paper library: papers' rows, files, chunks and notes, over SQLite or PostgreSQL."""
