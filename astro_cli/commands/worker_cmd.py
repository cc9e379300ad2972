"""`astro worker status|start|stop`: the warm worker behind `astro run` (docs/worker.md)."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

import typer

from astro_cli.bootstrap import UserError, user_errors
from astro_cli.commands.defaults import command_group

if TYPE_CHECKING:
    from astro_cli.worker.paths import WorkerPaths

app = command_group("status")  # `astro worker` alone says whether one runs


def _paths() -> WorkerPaths:
    from astro_cli.worker.paths import WorkerPaths

    return WorkerPaths.for_environment(os.environ)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


@app.command("status")
def status_command() -> None:
    """Say whether a worker runs, since when, and how many runs it took (exit 1 when none runs)."""
    from astro_cli.worker.lifecycle import lock_is_held, status, worker_settings

    with user_errors():
        paths = _paths()
        found = status(paths) if not paths.problem() else None
        enabled, idle, source = worker_settings(os.environ)
        if found is None:
            if lock_is_held(paths):
                typer.echo("A worker is starting (importing litellm); runs use it once it is ready.")
            elif not enabled:
                typer.echo(f"No worker is running; the worker is turned off ({source}).")
            else:
                typer.echo("No worker is running; the next `astro run` starts one.")
            raise typer.Exit(1)
        running = f", {found['running']} running now" if found["running"] else ""
        idle_for = f", idle for {_duration(float(found['idle_seconds']))}" if not found["running"] else ""
        typer.echo(f"Worker running: pid {found['pid']}, astro {found['version']}, "
                   f"up {_duration(time.time() - float(found['started']))}{idle_for}.")
        typer.echo(f"  runs: {found['served']} served{running}, {found['declined']} run in-process instead"
                   + (f" (last: {found['last_decline']})" if found["last_decline"] else ""))
        typer.echo(f"  exits after {float(found['idle_minutes']):g} min without runs; "
                   f"{found['modules']} modules warm, {int(found['rss_kb']) // 1024} MB, "
                   f"{found['threads']} thread(s)")
        typer.echo(f"  socket: {found['socket']}")
        if not enabled:
            typer.echo(f"  turned off here ({source}): runs from this folder do not use it")


@app.command("start")
def start_command() -> None:
    """Start the worker now and wait until it is ready (the first `astro run` would start it anyway)."""
    from astro_cli.worker.lifecycle import (
        START_TIMEOUT,
        lock_is_held,
        spawn_worker,
        status,
        wait_until,
        worker_settings,
    )

    with user_errors():
        enabled, idle, source = worker_settings(os.environ)
        if not enabled:
            raise UserError(f"The worker is turned off ({source}); see docs/worker.md.")
        paths = _paths()
        problem = paths.problem(create=True)
        if problem:
            raise UserError(f"The worker cannot start: {problem}.", exit_code=1)
        found = status(paths)
        if found is not None:
            typer.echo(f"A worker is already running (pid {found['pid']}).")
            return
        started = time.monotonic()
        if not lock_is_held(paths):
            spawn_worker(paths, idle, os.environ)
        if not wait_until(lambda: status(paths) is not None, START_TIMEOUT, interval=0.1):
            raise UserError(f"The worker did not become ready in {START_TIMEOUT:.0f} s; see {paths.log}.", exit_code=1)
        found = status(paths) or {}
        typer.echo(f"Worker ready: pid {found.get('pid')}, in {time.monotonic() - started:.1f} s.")


@app.command("stop")
def stop_command() -> None:
    """Stop the worker (runs in progress finish first); the next `astro run` starts a new one."""
    from astro_cli.pids import pid_alive
    from astro_cli.worker.lifecycle import ask, wait_until

    with user_errors():
        paths = _paths()
        answer = ask(paths, "stop") if not paths.problem() else None
        if not answer or "stopping" not in answer:
            typer.echo("No worker is running.")
            return
        pid = int(answer["stopping"])
        if wait_until(lambda: not pid_alive(pid), 30.0):
            typer.echo(f"Worker stopped (pid {pid}).")
        else:
            typer.echo(f"Worker (pid {pid}) stops after the runs in progress finish.")
