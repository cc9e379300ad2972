"""SQLite persistence: the database is the source of truth for sessions, tasks, usage and the library."""
