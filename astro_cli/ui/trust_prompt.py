"""What the researcher sees of workspace trust: the question the REPL asks once, the one-line notice.

The text of every item came from the project's files, so it is shown with control characters
escaped (a folder must not be able to rewrite the question it is asked about).
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console
from rich.text import Text

from astro_cli.security.trust import RiskyItem, TrustState, TrustStore
from astro_cli.security.visible import one_line

QUESTION = "Trust this folder and apply them? [y]es / [n]o, continue without them: "


def item_line(item: RiskyItem) -> str:
    return one_line(f"{item.key.removeprefix('skill:').removeprefix('mcp:')} ({item.where}): {item.detail}", 300)


def withheld_notice(state: TrustState) -> str | None:
    """The one line `astro run` prints on stderr (and the REPL shows dimmed) while settings are withheld."""
    withheld = state.withheld
    if not withheld:
        return None
    names = ", ".join(sorted({_short_name(item) for item in withheld}))
    why = "new or changed since you trusted this folder" if state.changed_since_trust else "this folder is not trusted"
    return f"ignored this folder's risky settings ({names}): {why}; `astro trust` applies them."


def _short_name(item: RiskyItem) -> str:
    if item.key.startswith("skill:"):
        return f"{item.where} allowed-tools"
    if item.key.startswith("mcp:"):
        return f"MCP server {item.key[4:]}"
    return item.key


def ask_trust(state: TrustState, store: TrustStore, console: Console, ask: Callable[[str], str]) -> bool:
    """Show what the project asks for and ask once; the answer is remembered. True when trusted now."""
    pending = state.unanswered
    if not pending:
        return False
    changed = state.changed_since_trust
    head = "This folder has risky settings that are new or changed since you trusted it:" if changed else (
        "This folder's project settings can run commands, widen what astro may do or send requests elsewhere:"
    )
    console.print(Text(head, style="bold yellow"))
    for item in state.withheld:
        console.print(Text("  " + item_line(item)))
    console.print(Text(f"  folder: {state.folder}", style="dim"))
    while True:
        try:
            answer = ask(QUESTION).strip().lower()
        except (EOFError, KeyboardInterrupt):
            console.print(Text("continuing without them (nothing remembered)", style="dim"))
            return False
        if answer in ("y", "yes"):
            store.trust(state.folder, state.items)
            console.print(Text("trusted: `astro trust --revoke` takes it back", style="dim"))
            return True
        if answer in ("n", "no"):
            store.decline(state.folder, pending)
            console.print(Text("continuing without them: `astro trust` applies them later", style="dim"))
            return False
        console.print(Text("answer y (trust and apply) or n (continue without them)", style="dim"))
