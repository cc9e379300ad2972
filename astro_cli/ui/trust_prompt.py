"""What the researcher sees of workspace trust: the question the REPL asks once, the one-line notice.

Every item is shown whole (security/trust_describe.py): commands, URLs, headers with their `${VAR}`
names, environment. Its text came from the project's files, so control characters are shown as
escapes (a folder must not be able to rewrite the question it is asked about), line by line. A
list longer than the terminal goes through rich's pager, so nothing scrolls past unread.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console
from rich.text import Text

from astro_cli.security.trust import RiskyItem, TrustState, TrustStore
from astro_cli.security.visible import visible

QUESTION = "Trust this folder and apply them? [y]es / [n]o, continue without them: "


def item_lines(item: RiskyItem) -> list[Text]:
    """The item's name and file, then every line of what it does, escaped, nothing cut."""
    name = item.key.removeprefix("skill:").removeprefix("mcp:")
    head = Text.assemble("  ", (visible(name, tabs=True), "bold"), f" ({visible(item.where, tabs=True)}):")
    return [head, *(Text("    " + visible(line, tabs=True)) for line in item.detail.splitlines() or [""])]


def show_items(console: Console, items: list[RiskyItem]) -> None:
    """Print the items; through the pager when they are taller than the terminal."""
    lines = [line for item in items for line in item_lines(item)]
    if console.is_terminal and len(lines) > max(console.height - 6, 5):
        from astro_cli.ui.pager import paged

        with paged(console):
            for line in lines:
                console.print(line, soft_wrap=True)
        return
    for line in lines:
        console.print(line, soft_wrap=True)


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
    show_items(console, state.withheld)
    console.print(Text(f"  folder: {visible(str(state.folder))}", style="dim"))
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
