"""Building the AppContext for a command, and turning user errors into one sentence and an exit code."""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from astro_cli.app import AppContext
from astro_cli.config import ConfigError, load_settings
from astro_cli.security.trust import assess_workspace
from astro_cli.store.db_errors import DatabaseUnusable, state_error, unusable_sentence
from astro_cli.user_error import EXIT_BUDGET as EXIT_BUDGET
from astro_cli.user_error import EXIT_FAILED as EXIT_FAILED
from astro_cli.user_error import EXIT_INTERRUPTED as EXIT_INTERRUPTED
from astro_cli.user_error import EXIT_OK as EXIT_OK
from astro_cli.user_error import EXIT_PROVIDER as EXIT_PROVIDER
from astro_cli.user_error import EXIT_USAGE as EXIT_USAGE
from astro_cli.user_error import UserError as UserError
from astro_cli.workspace import AstroHome, Workspace


def build_app(flags: dict[str, Any] | None = None, workspace: Path | str | None = None) -> AppContext:
    """Resolve settings for the current folder and return the application context."""
    from astro_cli.skills.approving import pre_approving_skills  # SKILL.md parsing: not on `astro --help`

    env = dict(os.environ)
    home = AstroHome.default(env)
    ws = Workspace.at(workspace or env.get("ASTRO_WORKSPACE") or None)
    trust = assess_workspace(ws.root, home.root, ws.config_path, pre_approving_skills(ws.skills_dirs))
    settings = load_settings(
        [home.config_path, ws.config_path], env=env, flags=flags or {}, withhold={ws.config_path: trust.withheld_keys},
        project=ws.config_path,
    )
    return AppContext(settings, ws, home, trust=trust)


def print_error(message: str) -> None:
    """One error sentence on stderr; it may quote a title or a path, so it is escaped, never markup."""
    from rich.console import Console
    from rich.text import Text

    from astro_cli.security.visible import rich_text

    Console(stderr=True, highlight=False).print(Text.assemble(("error:", "bold red"), " ", rich_text(message)),
                                                soft_wrap=True)


def print_warnings(app: AppContext) -> None:
    if not app.warnings:
        return
    from rich.console import Console
    from rich.text import Text

    from astro_cli.security.visible import rich_text

    console = Console(stderr=True, highlight=False)
    for warning in app.warnings:
        console.print(Text.assemble(("warning:", "yellow"), " ", rich_text(warning)), soft_wrap=True)


def print_withheld(app: AppContext) -> None:
    """One line on stderr while an untrusted folder's risky settings are ignored (`astro run` never asks)."""
    from astro_cli.ui.trust_prompt import withheld_notice

    notice = withheld_notice(app.trust)
    if notice:
        from rich.console import Console
        from rich.text import Text

        Console(stderr=True, highlight=False, soft_wrap=True).print(Text.assemble(("astro: ", "yellow"), notice))


@contextmanager
def user_errors(report: Callable[[str, int], None] | None = None) -> Iterator[None]:
    """Catch the errors a user can cause and exit with one clear sentence instead of a traceback.

    `report(sentence, exit_code)` also hears of each (`astro run --output-format json` prints it as
    its result object, so stdout always holds one)."""
    import typer

    from astro_cli.research.library.storage.shapes import LibraryUnavailable
    from astro_cli.security.paths import PathRefused

    def fail(message: str, code: int) -> typer.Exit:
        print_error(message)
        if report is not None:
            report(message, code)
        return typer.Exit(code)

    try:
        yield
    except (ConfigError, PathRefused, DatabaseUnusable) as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    except LibraryUnavailable as exc:  # the group library's server is down or refused the login
        raise fail(str(exc), EXIT_USAGE) from None
    except UserError as exc:
        raise fail(str(exc), exc.exit_code) from None
    except sqlite3.DatabaseError as exc:
        if not state_error(exc):
            raise
        # Damage found after the database opened (a page read only now): the same sentence.
        path = Workspace.at(os.environ.get("ASTRO_WORKSPACE") or None).db_path
        raise fail(unusable_sentence(path, exc), EXIT_USAGE) from None
    except KeyboardInterrupt:
        print("", file=sys.stderr)
        if report is not None:
            report("interrupted", EXIT_INTERRUPTED)
        raise typer.Exit(EXIT_INTERRUPTED) from None
