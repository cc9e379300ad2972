"""The AppContext of a `astro library ...` command, shared by its three modules (library_cmd,
library_net_cmd, library_migrate_cmd)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from astro_cli.app import AppContext


def library_app() -> AppContext:
    """The command's AppContext; a withheld library setting of an untrusted folder is said on stderr
    (else the researcher would wonder why the group's library is not the one searched)."""
    from astro_cli.bootstrap import build_app, print_withheld

    ctx = build_app()
    if any(key.startswith("library.") for key in ctx.trust.withheld_keys):
        print_withheld(ctx)
    return ctx
