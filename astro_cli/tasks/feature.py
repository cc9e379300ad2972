"""The tasks feature: todo_write and bg_task_run, recovery and nudges, /tasks and /bg, session sections."""

from __future__ import annotations

from typing import TYPE_CHECKING

from astro_cli.agent.extensions import loop_extensions
from astro_cli.slash import SlashCommand, slash_commands
from astro_cli.tasks import views
from astro_cli.transcript_sections import TranscriptSection, transcript_sections

if TYPE_CHECKING:
    from astro_cli.app import AppContext


def install(app: AppContext) -> None:
    from astro_cli.agent.described import DescribedNotDone
    from astro_cli.tasks.background import BackgroundGate, bg_tool
    from astro_cli.tasks.nudges import Nudges
    from astro_cli.tasks.recovery import TaskRecovery
    from astro_cli.tasks.todo import todo_tool

    app.tools.register(todo_tool(app))
    app.tools.register(bg_tool(app))
    loop_extensions(app).add(lambda: TaskRecovery(app))
    loop_extensions(app).add(lambda: Nudges(app))
    loop_extensions(app).add(lambda: BackgroundGate(app))
    loop_extensions(app).add(DescribedNotDone)  # a nudge of local models: do the task, do not describe it
    slash_commands(app).register(SlashCommand("tasks", "show this session's task plan", views.slash_tasks))
    slash_commands(app).register(SlashCommand("bg", "list background tasks (/bg cancel bg-N stops one)", views.slash_bg,
                                    usage="/bg [cancel bg-N]"))
    transcript_sections(app).add(TranscriptSection("Tasks", views.tasks_section))
    transcript_sections(app).add(TranscriptSection("Background tasks", views.background_section))
