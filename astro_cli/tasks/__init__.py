"""Tasks (todo_write), nudges, background work (bg_task_run) and task recovery."""
