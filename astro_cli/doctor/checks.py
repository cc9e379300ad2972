"""The checks of `astro doctor`, each a function of the app returning a `Check`: ok, one line, the fix.

Adding one is one line in `CHECKS` (issue 25 adds the sandbox's, issue 32 local OpenAI-compatible
servers'). A check reads and never writes: it opens the database read-only, runs the library check
without repairing, and reaches the model only with `--model-request`. A check that fails on an
unexpected error becomes a ✗ line saying so (logged with --debug), never a traceback.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from astro_cli.app import AppContext

log = logging.getLogger(__name__)

# The import names of astro's own dependencies (pyproject.toml), found without importing them.
DEPENDENCIES = ("typer", "rich", "prompt_toolkit", "litellm", "watchdog", "yaml", "sqlite_utils", "httpx",
                "pypdfium2", "platformdirs")


MIN_PYTHON = (3, 10)


@dataclass(frozen=True)
class Check:
    ok: bool
    line: str
    fix: str = ""  # what to do about a ✗, one sentence or a command

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class DoctorOptions:
    model_request: bool = False  # send the model one tiny request


CheckFn = Callable[["AppContext", DoctorOptions], Check]


def python_check(app: AppContext, options: DoctorOptions) -> Check:
    version = ".".join(str(part) for part in sys.version_info[:3])
    if tuple(sys.version_info[:2]) < MIN_PYTHON:  # an interpreter other than the one installed for
        return Check(False, f"Python {version} ({sys.executable})", "astro needs Python 3.10 or newer.")
    return Check(True, f"Python {version} ({sys.executable})")


def install_check(app: AppContext, options: DoctorOptions) -> Check:
    import importlib.util

    from astro_cli import __version__

    missing = [name for name in DEPENDENCIES if importlib.util.find_spec(name) is None]
    where = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if missing:
        return Check(False, f"astro {__version__} at {where}: missing {', '.join(missing)}",
                     "reinstall astro (`make install`, or `pipx reinstall astro`).")
    return Check(True, f"astro {__version__} at {where}, its {len(DEPENDENCIES)} main libraries installed")


def keys_check(app: AppContext, options: DoctorOptions) -> Check:
    from astro_cli.keystore import PROVIDER_ENV, KeyStoreError, credential

    store = app.keys  # the app's one reader of keys.yaml
    try:
        stored = store.load()
    except KeyStoreError as exc:
        return Check(False, f"keys: {exc}", f"fix or remove {store.path}, then `astro keys set PROVIDER`.")
    found = []
    for provider in sorted(set(PROVIDER_ENV) | set(stored)):
        key = credential(provider, os.environ, store)
        if key is not None and provider != "ads":
            found.append(f"{provider} ({'keys.yaml' if key.from_store else key.source.removeprefix('env ')})")
    if os.environ.get("ASTRO_API_KEY"):
        found.append("ASTRO_API_KEY")
    if store.too_open():
        return Check(False, f"keys: {', '.join(found) or 'none'}; {store.path} can be read by other users",
                     f"chmod 600 {store.path}")
    if not found:
        if app.settings.typed["model"] or app.settings.typed["api_base"]:
            return Check(True, "keys: none (the configured model or server may need none)")
        return Check(False, "keys: none found in the environment or keys.yaml",
                     "`astro keys set anthropic` (or openai, gemini, ...), or export ANTHROPIC_API_KEY=...")
    return Check(True, "keys: " + ", ".join(found))


def ads_check(app: AppContext, options: DoctorOptions) -> Check:
    from astro_cli.keystore import KeyStoreError, credential

    store = app.keys  # the app's one reader of keys.yaml
    try:
        key = credential("ads", os.environ, store)
    except KeyStoreError:
        key = None
    if key is None:
        return Check(True, "NASA ADS token: not set (optional: arXiv works without it; `astro keys set ads` "
                     "adds one for ADS search and BibTeX)")
    return Check(True, f"NASA ADS token: from {'keys.yaml' if key.from_store else key.source.removeprefix('env ')}")


def model_check(app: AppContext, options: DoctorOptions) -> Check:
    from astro_cli.agent.model_choice import model_choice

    choice = model_choice(app)
    if choice is None:
        return Check(False, "model: none configured and no provider key to pick one from",
                     "run `astro` in a terminal (it walks you through it), or `astro keys set PROVIDER`.")
    line = f"model: {choice.model} ({choice.origin})"
    if not options.model_request:
        return Check(True, line + "; `astro doctor --model-request` sends it one tiny request")
    from astro_cli.agent.factory import resolve_model
    from astro_cli.agent.open_model import open_model

    config = resolve_model(app)
    config.num_retries = 0
    try:
        reply = open_model(config).complete([{"role": "user", "content": "Reply with the word OK."}])
    except Exception as exc:  # noqa: BLE001 - any provider failure is this check's ✗, in its own words
        return Check(False, f"{line}: the request failed: {exc}",
                     "check the key and --api-base / ASTRO_API_BASE (`astro keys list`, `astro config show model`).")
    return Check(True, f"{line}: answered a test request ({reply.usage.output_tokens} tokens)")


def database_check(app: AppContext, options: DoctorOptions) -> Check:
    path = app.workspace.db_path
    if not path.exists():
        return Check(True, f"database: none yet in {app.workspace.root} (made on first use)")
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
            result = conn.execute("PRAGMA quick_check").fetchone()[0]
            sessions = conn.execute("SELECT count(*) FROM sessions").fetchone()[0]
    except sqlite3.Error as exc:
        return Check(False, f"database {path}: {exc}", "move it aside (astro offers this when the REPL opens) "
                     "or restore it from a backup.")
    if result != "ok":
        return Check(False, f"database {path}: integrity check says {result}",
                     "open `astro` in a terminal: it offers to keep the damaged file aside and start afresh.")
    return Check(True, f"database: {path} ({sessions} session(s)), integrity ok")


def library_check(app: AppContext, options: DoctorOptions) -> Check:
    from astro_cli.research.library.storage import has_library

    if not app.settings.typed["library.database_url"] and not app.workspace.db_path.exists():
        return Check(True, "library: empty")
    if not has_library(app.settings, app.workspace):
        return Check(True, "library: empty")
    from astro_cli.research.library.doctor import check_library
    from astro_cli.research.library.service import Library

    report = check_library(Library.of(app), repair=False)
    wanting = [f for f in report.findings if f.kind == "needs-you"]
    if wanting:
        return Check(False, f"library: {report.papers} paper(s); {len(wanting)} finding(s) need you "
                     f"(first: {wanting[0].text})", "`astro library check` lists them and repairs what is safe.")
    return Check(True, f"library: {report.papers} paper(s), {report.chunks} chunk(s), in order")


def worker_check(app: AppContext, options: DoctorOptions) -> Check:
    from astro_cli.worker.lifecycle import status, worker_settings
    from astro_cli.worker.paths import WorkerPaths

    enabled, _idle, source = worker_settings(os.environ)
    if not enabled:
        return Check(True, f"worker: turned off ({source}); every `astro run` imports litellm itself")
    paths = WorkerPaths.for_environment(os.environ)
    problem = paths.problem()
    if problem:
        return Check(False, f"worker: {problem}", "`astro worker stop`, then the next `astro run` starts it again.")
    found = status(paths)
    if found is None:
        return Check(True, "worker: not running (the next `astro run` starts one)")
    return Check(True, f"worker: running, pid {found['pid']}, astro {found['version']}")


def mcp_check(app: AppContext, options: DoctorOptions) -> Check:
    import shutil

    from astro_cli.mcp.servers import HTTP, is_configured, load_config

    if not is_configured(app):
        return Check(True, "MCP servers: none configured")
    config = load_config(app)
    bad: list[str] = list(config.problems)
    for spec in config.servers:
        if spec.problem:
            bad.append(f"{spec.name}: {spec.problem}")
        elif spec.transport != HTTP and not spec.skipped and shutil.which(spec.command) is None:
            bad.append(f"{spec.name}: '{spec.command}' was not found")
    names = ", ".join(spec.name for spec in config.servers) or "none"
    if bad:
        return Check(False, f"MCP servers ({names}): " + "; ".join(bad),
                     "`astro mcp list` shows each; install the command or `astro mcp remove NAME`.")
    return Check(True, f"MCP servers: {names} (`astro mcp list` connects to each)")


def trust_check(app: AppContext, options: DoctorOptions) -> Check:
    from astro_cli.ui.trust_prompt import withheld_notice

    notice = withheld_notice(app.trust)
    if notice:
        return Check(False, f"trust: {notice}", "`astro trust` shows exactly what would run and applies it.")
    if app.trust.items:
        return Check(True, f"trust: this folder's risky settings are trusted ({len(app.trust.items)})")
    return Check(True, "trust: this folder asks for nothing risky")


def sandbox_check(app: AppContext, options: DoctorOptions) -> Check:
    """Whether commands run in the sandbox, and exactly what it hides and allows (a ✗ when weaker)."""
    from astro_cli.security.sandbox import sandbox

    fence = sandbox(app)
    report = fence.report()
    if not report.ok:
        return Check(False, f"sandbox: {report.sentence}",
                     "install bubblewrap (`apt install bubblewrap`, or your system's package) and keep "
                     "`sandbox.enabled: true` in your user config (docs/security.md).")
    allows, hides = fence.fence().describe()
    line = f"sandbox: {report.sentence} Allows {allows}. Hides {hides}."
    if report.weaker:
        return Check(False, line, "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on "
                                  "Ubuntu 24.04 kernel.apparmor_restrict_unprivileged_userns=0 or bubblewrap's "
                                  "AppArmor profile).")
    return Check(True, line)


def local_servers_check(app: AppContext, options: DoctorOptions) -> Check:
    """Which local model servers answer (Ollama, and OpenAI-compatible ones by GET /v1/models):
    informational, never a ✗, since a cloud model needs none."""
    from astro_cli.agent.profiles import SMALL_CONTEXT
    from astro_cli.local_servers import answers, find_servers, server_root
    from astro_cli.ollama import TAGS_TIMEOUT

    urls = [server_root(u) for u in app.settings.typed["local_servers"]]
    found = find_servers(urls)
    parts = []
    for server in found:
        models = ", ".join(
            f"{m.id}" + (f" (context {m.context:,}{', small profile' if m.context < SMALL_CONTEXT else ''})"
                         if m.context else "") for m in server.models[:5]) or "no model loaded"
        parts.append(f"{server.kind} at {server.url} serves {models}")
    ollama = answers(app.settings.typed["ollama_url"].rstrip("/") + "/api/tags", TAGS_TIMEOUT)
    if ollama:
        parts.append(f"Ollama at {app.settings.typed['ollama_url']}")
    silent = [u for u in urls if u not in {s.url for s in found}]
    if not parts:
        return Check(True, f"local model servers: none (looked at {', '.join(urls + [app.settings.typed['ollama_url']])})")
    tail = f"; nothing at {', '.join(silent)}" if silent else ""
    return Check(True, "local model servers: " + "; ".join(parts) + tail)


def catalog_check(app: AppContext, options: DoctorOptions) -> Check:
    """The TAP URLs the researcher allowed (catalog/allowed.py): informational, so a URL allowed long ago
    is seen; the user's config and a trusted project's both count."""
    from astro_cli.catalog.allowed import allowed_urls

    urls = allowed_urls(app.settings)
    if not urls:
        return Check(True, "catalogue services: the configured ones; no TAP URL allowed")
    return Check(True, f"catalogue services: the configured ones and {len(urls)} TAP URL(s) you allowed: "
                       f"{', '.join(urls)} (config catalog.allowed_urls)")


def config_check(app: AppContext, options: DoctorOptions) -> Check:
    """A misspelt or misplaced key in a config file is ignored at every start: say it here too."""
    problems = list(app.settings.warnings)
    if problems:
        return Check(False, "config: " + " ".join(problems),
                     "fix the key in the file named (`astro config show` lists the settings; "
                     "`astro config unset KEY` removes one).")
    return Check(True, "config: every key in the config files is known")


# One line per check, in the order shown. Local OpenAI-compatible servers (issue 32): one line each.
CHECKS: list[CheckFn] = [
    python_check, install_check, config_check, keys_check, ads_check, model_check, local_servers_check, database_check,
    library_check, worker_check, mcp_check, trust_check, sandbox_check, catalog_check,
]


def run_checks(app: AppContext, options: DoctorOptions, checks: list[CheckFn] | None = None) -> list[Check]:
    results: list[Check] = []
    for check in checks or CHECKS:
        try:
            results.append(check(app, options))
        except Exception as exc:  # noqa: BLE001 - one broken check must not hide the others
            log.debug("doctor check %s failed", check.__name__, exc_info=True)
            results.append(Check(False, f"{check.__name__.removesuffix('_check')}: the check itself failed: {exc}",
                                 "run `astro --debug doctor` and see ASTRO_HOME/logs/astro.log."))
    return results
