"""Structure: a command prints text that is not a literal only through the printers of outside text
(security/visible.py: visible, rich_text, one_line, name_shown, visible_json, markup_safe).

Records from the network (ADS, arXiv, SIMBAD, catalogues, MCP servers) and rows from the database
(papers, sessions, notes others wrote) carry whatever their authors put in them: an OSC 52 clipboard
write, a screen clear, rich markup. The rule is checked on the source of every command module: each
argument of print(), typer.echo(), console.print(), sys.stdout.write() and table.add_row() must be a
literal, an f-string of safe parts, or a call of one of those printers (a number formatted with a
spec such as `:,` is safe). What does not follow it is listed below with the reason it may print
what it prints; the list can only shrink: an entry that no longer prints anything unsafe fails too.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import astro_cli

COMMANDS = Path(astro_cli.__file__).parent / "commands"
PRINTERS = {"visible", "rich_text", "one_line", "name_shown", "visible_json", "markup_safe"}
NUMBERS = {"len", "int", "float", "round"}
WRAPPERS = {"Text", "assemble", "clipped"}  # safe when what they wrap is

# (module, function) -> why what it prints is not outside text. Only shrinks.
ALLOWED = {
    ("config_cmd.py", "get"): "a setting's value from the user's own config layers, as `config show` prints it",
    ("config_cmd.py", "set_"): "the key and value the user just typed, and the path astro wrote",
    ("config_cmd.py", "unset"): "the key the user just typed and the path astro wrote",
    ("defaults.py", "list_commands"): "typer's help of astro's own command group",
    ("defaults.py", "listing_group"): "the same help, seen from the function that defines list_commands",
    ("config_cmd.py", "show"): "settings of the user's layers; values redacted (config_view.py), JSON for scripts",
    ("doctor_cmd.py", "doctor_command"): "astro's own check results (one sentence each, built by astro)",
    ("hooks_cmd.py", "list_hooks"): "timeouts and statuses astro formats; commands, matchers, plugin names and "
                                    "problems through rich_text() / markup_safe() (stop 52)",
    ("init_cmd.py", "init_command"): "paths astro created and fixed sentences",
    ("keys_cmd.py", "_read_key"): "a prompt astro wrote",
    ("keys_cmd.py", "list_keys"): "provider names and masked keys astro formats",
    ("keys_cmd.py", "path"): "the key store's path",
    ("keys_cmd.py", "remove_key"): "the provider name the user typed and a fixed sentence",
    ("keys_cmd.py", "set_key"): "the provider name the user typed and a fixed sentence",
    ("library_cmd.py", "_say_missing_model"): "a fixed sentence naming the embedding model setting",
    ("library_cmd.py", "check"): "counts, and findings already through visible() inside rich markup",
    ("library_cmd.py", "list_papers"): "rows go through rich_text() in the table, --json through visible_json(); "
                                       "the rest are counts and the store's location",
    ("library_migrate_cmd.py", "migrate"): "counts and database locations the user gave",
    ("library_migrate_cmd.py", "update"): "counts of a migration",
    ("library_net_cmd.py", "_add_download"): "paths astro chose under papers/",
    ("library_net_cmd.py", "_add_local"): "the path astro stored and the argument the user typed",
    ("library_net_cmd.py", "_index"): "counts and astro's notes on indexing",
    ("library_reindex_cmd.py", "reindex"): "counts and the embedding model's name from the user's config",
    ("mcp_cmd.py", "add_server"): "the server name and command the user typed",
    ("mcp_cmd.py", "remove_server"): "the server name the user typed",
    ("memory_cmd.py", "add"): "the slug and path astro wrote",
    ("memory_cmd.py", "edit"): "the path astro opened in the user's editor",
    ("memory_cmd.py", "forget"): "the slug the user typed",
    ("prompt_cmd.py", "_print"): "astro's own assembled prompt, shown to its user as it is sent",
    ("prompt_cmd.py", "show"): "astro's own assembled prompt as JSON",
    ("repl_cmd.py", "settle_trust"): "the trust question, escaped by trust_describe",
    ("sessions_cmd.py", "list_sessions"): "cells go through rich_text(); --json is json.dumps with ensure_ascii "
                                          "(every non-ASCII character escaped); notes are astro's sentences",
    ("skills_cmd.py", "list_skills"): "skill names and paths of the user's layers",
    ("skills_cmd.py", "new"): "the path astro created",
    ("skills_cmd.py", "show"): "a SKILL.md the user asked to read, as a pager would show it",
    ("skills_cmd.py", "validate"): "astro's findings on a SKILL.md",
    ("trust_cmd.py", "trust_command"): "trust lists escaped by trust_describe (issue 25)",
    ("worker_cmd.py", "start_command"): "the worker's pid and socket path",
    ("worker_cmd.py", "status_command"): "the worker's pid, socket path and counts",
    ("worker_cmd.py", "stop_command"): "the worker's pid",
}


def _safe(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.JoinedStr):
        return all(_safe(part) for part in node.values)
    if isinstance(node, ast.FormattedValue):
        return node.format_spec is not None or _safe(node.value)
    if isinstance(node, ast.BinOp):
        return _safe(node.left) and _safe(node.right)
    if isinstance(node, ast.IfExp):
        return _safe(node.body) and _safe(node.orelse)
    if isinstance(node, ast.Tuple):  # rich's (text, style) pairs
        return bool(node.elts) and _safe(node.elts[0])
    if isinstance(node, ast.List):
        return all(_safe(item) for item in node.elts)
    if isinstance(node, ast.Starred):
        return _safe(node.value)
    if isinstance(node, (ast.GeneratorExp, ast.ListComp)):
        return _safe(node.elt)
    if isinstance(node, ast.Name) and node.id == "table":  # its cells are checked at add_row
        return True
    if isinstance(node, ast.Name) and node.id.isupper():  # a module constant: astro's own sentence
        return True
    if isinstance(node, ast.Call):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if name in PRINTERS or name in NUMBERS:
            return True
        return name in WRAPPERS and all(_safe(arg) for arg in node.args)
    return False


def _prints(call: ast.Call) -> bool:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id == "print"
    if not isinstance(func, ast.Attribute):
        return False
    if func.attr in ("echo", "secho"):
        return isinstance(func.value, ast.Name) and func.value.id == "typer"
    if func.attr == "write":
        return isinstance(func.value, ast.Attribute) and func.value.attr in ("stdout", "stderr")
    return func.attr in ("print", "add_row")


# Beyond commands/: the REPL, its slash commands and the renderers print to the same terminal. Every print
# there was audited (stop 50): text from outside now goes through the printers, and what is left below prints
# only astro's own text, for the reason given. The list only shrinks: an entry that no longer prints anything
# unsafe fails, and a new print outside it must go through the printers. Entries are (path under astro_cli,
# function).
PACKAGE = COMMANDS.parent
ALSO_CHECKED = ("ui", "mcp", "catalog", "citations", "delegation", "doctor", "slash.py")
AUDITED = {
    ("compact/feature.py", "compact_slash"): "a style astro picks; the outcome through markup_safe()",
    ("skills/slash.py", "list_skills"): "the skill's layer (astro's word) and a score; names through markup_safe()",
    ("tasks/views.py", "_cancel"): "a task number astro parsed",
    ("citations/cite.py", "slash_cite"): "a count of entries; the path is shown through visible()",
    ("citations/evidence.py", "slash_evidence"): "lines evidence_lines() builds from one_line() parts",
    ("delegation/slash.py", "agents_slash"): "an agent's layer (user/project, astro's word) and a step count",
    ("mcp/report.py", "render"): "status_text() is astro's sentence on a server's state",
    ("mcp/report.py", "render_tools"): "a token count beside names through visible()",
    ("ui/builtin_slash.py", "_config"): "setting names and help of astro's schema, and the config files' paths",
    ("ui/builtin_slash.py", "_cost"): "usage_line(): counts and costs astro formats",
    ("ui/builtin_slash.py", "_sessions"): "session ids and dates astro makes, counts; titles through rich_text()",
    ("ui/builtin_slash.py", "_sources"): "lines built from one_line() parts",
    ("ui/builtin_slash.py", "_tool"): "call numbers, status words and durations; names through one_line()",
    ("ui/builtin_slash.py", "_tools"): "the permission word astro chose, as rich markup",
    ("ui/first_run.py", "_choose"): "a count",
    ("ui/first_run.py", "_first_run"): "ollama_url of the user's own config (not a project setting), counts",
    ("ui/first_run.py", "_provider_key"): "provider names and models of astro's table, the key store's path",
    ("ui/first_run.py", "_save_model"): "the model and server the user just chose, the config path astro wrote",
    ("ui/oneshot.py", "_line"): "parts its callers pass through visible()/one_line(), then redacted",
    ("ui/oneshot.py", "_write_json"): "json.dumps: a control character is written as its \\u escape",
    ("ui/oneshot.py", "finish"): "the answer through visible() on a terminal; piped, the answer as it is (a script's data)",
    ("ui/pager.py", "show"): "rich's own rendering of text already through the printers, colour codes removed",
    ("ui/passages.py", "print_hits"): "the question the user typed (one_line), counts, astro's notes; titles and "
                                      "passages through one_line()/visible()",
    ("ui/prompt_input.py", "ask"): "astro's question",
    ("ui/prompt_input.py", "read"): "astro's prompt and the line the user piped in",
    ("ui/render.py", "_on_subagent_started"): "a step count beside one_line() parts",
    ("ui/render.py", "_on_turn_finished"): "astro's words on an interrupted turn; usage_line() counts",
    ("ui/render.py", "settle"): "renderables tool_line() builds from one_line() parts",
    ("ui/repl.py", "_close"): "the session id astro made",
    ("ui/repl.py", "_describe_session"): "the session id astro made, counts",
    ("ui/repl.py", "ask_permission"): "approval_lines(): arguments through visible()",
    ("ui/repl.py", "open"): "astro's version; the model and folder through visible()",
    ("ui/repl.py", "switch_session"): "the session id astro made",
    ("ui/status_cmd.py", "status"): "setting names; values through rich_text()",
    ("ui/transcript.py", "print_transcript"): "transcript_markdown() passes the whole transcript through visible()",
    ("ui/trust_prompt.py", "ask_trust"): "astro's heading",
    ("ui/trust_prompt.py", "show_items"): "lines trust_describe() escapes (issue 25)",
}


def _unsafe_in(paths: list[Path], name: Callable[[Path], str]) -> dict[tuple[str, str], list[int]]:
    found: dict[tuple[str, str], list[int]] = {}
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Call) and _prints(node) and not all(_safe(arg) for arg in node.args):
                    found.setdefault((name(path), function.name), []).append(node.lineno)
    return found


def test_the_terminal_parts_print_outside_text_only_through_visible_or_say_why_not():
    listed = [p for part in ALSO_CHECKED
              for p in ([PACKAGE / part] if part.endswith(".py") else sorted((PACKAGE / part).glob("*.py")))]
    # Every module with a slash command prints to the terminal, wherever it lives (hooks/feature.py's
    # /hooks printed a folder's hook command raw while only the folders above were checked).
    slash = [p for p in sorted(PACKAGE.rglob("*.py")) if "SlashContext" in p.read_text(encoding="utf-8")]
    paths = sorted(set(listed) | set(slash))
    found = _unsafe_in(paths, lambda path: path.relative_to(PACKAGE).as_posix())
    new = sorted(f"{module}:{lines[0]} in {function}()" for (module, function), lines in found.items()
                 if (module, function) not in AUDITED)
    assert not new, f"print text from outside through visible() and friends (security/visible.py): {new}"
    stale = sorted(f"{m}:{f}" for m, f in AUDITED if (m, f) not in found)
    assert not stale, f"these no longer print anything unsafe: remove them from AUDITED: {stale}"


def unsafe_printers() -> dict[tuple[str, str], list[int]]:
    """(module, function) -> lines where something not known to be safe is printed."""
    return _unsafe_in(sorted(COMMANDS.glob("*.py")), lambda path: path.name)


def test_commands_print_outside_text_only_through_visible():
    found = unsafe_printers()
    new = {f"{module}:{line} in {function}()" for (module, function), lines in found.items()
           if (module, function) not in ALLOWED for line in lines}
    assert not new, ("print text from outside through visible(), rich_text(), one_line() or visible_json() "
                     f"(astro_cli/security/visible.py): {sorted(new)}")
    stale = sorted(f"{module}:{function}" for module, function in ALLOWED if (module, function) not in found)
    assert not stale, f"these no longer print anything unsafe: remove them from ALLOWED: {stale}"


def test_the_checker_catches_a_raw_print(tmp_path):
    tree = ast.parse("def f(record):\n    console.print(f\"{record['title']}\")\n    typer.echo(visible(record['t']))\n")
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and _prints(node)]
    assert [all(_safe(arg) for arg in call.args) for call in calls] == [False, True]
