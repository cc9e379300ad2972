"""Errors a user can cause and fix, and astro's exit codes: a base every layer may raise from.

bootstrap.user_errors turns a UserError into one sentence and its exit code; any module that can
fail for a user's reason raises (a subclass of) it, so the top catches one type and imports no
feature to name its errors.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_PROVIDER = 3
EXIT_BUDGET = 4
EXIT_INTERRUPTED = 130


class UserError(Exception):
    """A problem the user can fix; printed as one sentence, exit code attached."""

    def __init__(self, message: str, exit_code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.exit_code = exit_code
