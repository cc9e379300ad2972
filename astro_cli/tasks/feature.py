"""The tasks feature: todo_write and bg_task_run, recovery and nudges, /tasks and /bg, session sections."""

from __future__ import annotations

from typing import TYPE_CHECKING

from astro_cli.agent.extensions import loop_extensions
from astro_cli.tasks import views
from astro_cli.ui import transcript

if TYPE_CHECKING:
    from astro_cli.app import AppContext

# Sections of `astro sessions show`/export; registered once per process, at import.
for _provider in (views.tasks_section, views.background_section):
    if _provider not in transcript.SECTION_PROVIDERS:
        transcript.SECTION_PROVIDERS.append(_provider)


def install(app: AppContext) -> None:
    from astro_cli.tasks.background import BackgroundGate, bg_tool
    from astro_cli.tasks.nudges import Nudges
    from astro_cli.tasks.recovery import TaskRecovery
    from astro_cli.tasks.todo import todo_tool
    from astro_cli.ui.slash import SlashCommand, register_slash

    app.tools.register(todo_tool())
    app.tools.register(bg_tool())
    loop_extensions(app).add(TaskRecovery)
    loop_extensions(app).add(Nudges)
    loop_extensions(app).add(BackgroundGate)
    register_slash(app, SlashCommand("tasks", "show this session's task plan", views.slash_tasks))
    register_slash(app, SlashCommand("bg", "list background tasks (/bg cancel bg-N stops one)", views.slash_bg,
                                     usage="/bg [cancel bg-N]"))
