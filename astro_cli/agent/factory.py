"""Choosing the model and opening an agent session (new, continued or resumed)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from astro_cli.agent.current_model import CurrentModel
from astro_cli.agent.events import EventBus
from astro_cli.agent.extensions import loop_extensions
from astro_cli.agent.local_models import max_continuations, server_facts, tuning_of
from astro_cli.agent.loop import AgentSession
from astro_cli.agent.model import Model
from astro_cli.agent.model_choice import NO_MODEL, ModelChoice, choose_model, credentials_for, key_store
from astro_cli.agent.open_model import open_model
from astro_cli.agent.parts import LoopParts
from astro_cli.agent.permissions import Asker, PermissionPolicy
from astro_cli.agent.provider import LLMConfig
from astro_cli.config import COMMAND_LINE, ConfigError
from astro_cli.security.process import harden_process
from astro_cli.security.secrets import variables_holding_secrets
from astro_cli.store.locks import FileLock
from astro_cli.user_error import UserError

if TYPE_CHECKING:
    import threading
    from collections.abc import Callable
    from typing import Any

    from astro_cli.agent.history_store import HistoryStore
    from astro_cli.app import AppContext
    from astro_cli.by_kind import SessionStates
    from astro_cli.config import Settings
    from astro_cli.tools.context import ToolContext, ToolHost


def session_parts(app: AppContext, history: HistoryStore | None = None) -> LoopParts:
    """What a session runs on, read off the app here and nowhere else (agent/parts.py); `history`
    is where its messages go: the sessions table unless a store is given (a subagent's own)."""

    def tool_context(*, session_id: str, turn: int, call_id: str, agent: str, cancel: threading.Event,
                     emit: Callable[[Any], None], states: SessionStates, host: ToolHost) -> ToolContext:
        from astro_cli.tools.context import ToolContext

        return ToolContext(app=app, session_id=session_id, turn=turn, call_id=call_id, agent=agent, cancel=cancel,
                           emit=emit, states=states, host=host)

    return LoopParts(settings=app.settings, tools=app.tools, prompt=app.prompt, redactor=app.redactor,
                     history=history if history is not None else app.sessions, workspace=app.workspace.root,
                     tool_context=tool_context)


def resolve_model(app: AppContext, env: Mapping[str, str] | None = None) -> LLMConfig:
    """The LLM configuration for a new session: the chosen model, its endpoint and where its key comes from."""
    return session_model(app, env).config


def session_model(app: AppContext, env: Mapping[str, str] | None = None, recorded: str | None = None) -> CurrentModel:
    """A session's model (agent/current_model.py): the chosen model, its endpoint and where its key
    comes from. `recorded` is the model a resumed session last used: it wins over everything but a
    --model on the command line, so a conversation goes on with the model /model chose for it."""
    env = os.environ if env is None else env
    settings = app.settings
    store = key_store(app)
    if recorded and settings.source("model") != COMMAND_LINE:
        choice: ModelChoice | None = ModelChoice(recorded, "the resumed session")
    else:
        choice = choose_model(settings, env, store)
    if choice is None:
        raise ConfigError(NO_MODEL)
    api_base = settings.typed["api_base"] or default_api_base(choice.model, settings, env)
    server = server_facts(choice.model, api_base, local_servers_cache(app))
    tuning = tuning_of(choice.model, settings.typed["api_base"], settings, server.context)
    config = LLMConfig(
        model=choice.model,
        api_base=api_base,
        api_key=env.get("ASTRO_API_KEY") or None,
        num_retries=settings.typed["num_retries"],
        retry_backoff=settings.typed["retry_backoff"],
        timeout=settings.typed["timeout"],
        credentials=credentials_for(env, store),
        retry_max_wait=settings.typed["retry_max_wait"],
        max_continuations=max_continuations(tuning, settings),
        text_tool_calls=tuning.text_tool_calls,
        temperature=tuning.temperature,
        first_token_timeout=tuning.first_token_timeout,
        max_tokens=tuning.max_tokens,
        context_window=server.context,
        server_kind=server.kind,
    )
    return CurrentModel(config, choice.origin, settings)


def local_servers_cache(app: AppContext) -> Path:
    """Where the context windows local servers reported are kept (astro_cli/local_servers.py)."""
    return app.home.root / "local-servers.json"


def default_api_base(model: str, settings: Settings, env: Mapping[str, str]) -> str | None:
    """Where a model is served when no api_base says: an Ollama model at config `ollama_url`
    (default http://localhost:11434), unless litellm's own OLLAMA_API_BASE names the server."""
    if model.split("/", 1)[0] in ("ollama", "ollama_chat") and not env.get("OLLAMA_API_BASE"):
        return str(settings.typed["ollama_url"] or "") or None
    return None


def permission_policy(app: AppContext, allow: list[str] | None = None, yes: bool = False, asker: Asker | None = None) -> PermissionPolicy:
    settings = app.settings
    return PermissionPolicy(
        allow=set(settings.typed["permissions.allow"] or []) | set(allow or []),
        deny=set(settings.typed["permissions.deny"] or []),
        yes_to_all=yes,
        asker=asker,
        protected=protected_pattern(app),
    )


def protected_pattern(app: AppContext) -> re.Pattern[str]:
    """How a command could name astro's own state: `.astro`, `astro.db`, `.mcp.json`, ASTRO_HOME, and the
    files hooks and MCP servers run."""
    home = str(app.home.root)
    spellings = [re.escape(home)]
    user_home = os.path.expanduser("~")
    if home.startswith(user_home + os.sep):
        rest = re.escape(home[len(user_home):])
        spellings += [r"~" + rest, r"\$\{?HOME\}?" + rest]
    words = [r"\.astro(?![\w.-])", r"astro\.db\b", r"\.mcp\.json\b", r"ASTRO_HOME\b", r"trusted-folders\.json",
             r"keys\.yaml\b"]
    root = app.workspace.root.resolve()
    for path in app.executed_files:  # a file a hook or MCP server runs, by its name in the workspace
        relative = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
        exists = path.exists()
        if not exists and "/" not in relative and "." not in relative:
            continue  # a module name Python would look up first (`json`), not there: a word, not a path
        words.append(r"(?<![\w.-])" + re.escape(relative) + r"(?![\w.-])")
        if (path.is_file() or (not exists and path.suffix)) and ".git" not in Path(relative).parts:
            words.append(r"(?<![\w.-])" + re.escape(path.name) + r"(?![\w.-])")  # `cd scripts && ... post.sh`
        words.append(re.escape(str(path)))
    return re.compile("|".join(words + spellings), re.IGNORECASE)


class SessionNotFound(UserError):
    """--resume or --continue named no session of this workspace (a usage error: one sentence, exit 2)."""


class NothingToContinue(SessionNotFound):
    """--continue in a workspace without an earlier session (failed attempts do not count)."""


class SessionBusy(UserError):
    """Another astro process is writing the session; one sentence with who, and --fork as a way out."""


def claim_session(app: AppContext, session_id: str) -> FileLock:
    """Hold the session for this process until it stops (one writer per session, across processes)."""
    lock = FileLock(app.workspace.astro_dir / "locks" / f"session-{session_id}.lock")
    if not lock.try_acquire():
        holder = lock.holder()
        who = f" ({holder.describe()})" if holder else ""
        raise SessionBusy(
            f"Session {session_id} is in use by another astro process{who}; wait until it ends, or add "
            "--fork to continue in a copy of it."
        )
    app.on_close(lock.release)
    return lock


def open_session(
    app: AppContext,
    bus: EventBus,
    permissions: PermissionPolicy,
    resume: str | None = None,
    continue_latest: bool = False,
    llm: Model | None = None,
    fork: bool = False,
    new_id: str | None = None,
) -> AgentSession:
    """A session ready for turns: the one named by `resume`, the latest one, or a new one.

    With `fork`, a new session that starts as a copy of the one named by `resume` (else the
    latest), so two terminals can go on from the same conversation. `new_id` names a new session
    (`--session-id`, as `claude` takes one).
    """
    # Before any tool or hook can start a command: keys out of reach of child processes (Linux).
    harden_process(variables_holding_secrets(os.environ))
    app.install_features()
    workspace = str(app.workspace.root)
    row = None
    if llm is None and not resume and not (continue_latest or fork):
        llm = open_model(session_model(app))  # a missing model is said before the database is opened
    app.db  # noqa: B018 - a damaged or unwritable database is reported before any feature reads it
    session_id = None
    if resume:
        row = app.sessions.get(resume)
        if row is None:
            raise SessionNotFound(app.sessions.not_found(resume))
        session_id = row["id"]
    elif continue_latest or fork:
        row = app.sessions.latest(workspace)
        if row is None:
            flag = "--fork" if fork else "--continue"
            raise NothingToContinue(
                f"Nothing to {flag[2:]}: no earlier session in {workspace}. Leave out {flag} to start one."
            )
        session_id = row["id"]
    if llm is None:
        llm = open_model(session_model(app, recorded=row["model"] if row is not None else None))
    # A bad tool_order or prompt variable fails here, with one sentence, before anything is stored.
    app.prompt.assemble(app.tools.ordered(app.settings.typed["tool_order"]))
    forked_from = None
    if fork and session_id is not None:
        forked_from, session_id = session_id, app.sessions.fork(session_id, workspace, llm.config.model)
    if session_id is None:
        if new_id is not None and app.sessions.get(new_id) is not None:
            raise SessionBusy(f"A session with the id {new_id} exists already; `--resume {new_id}` continues it.")
        session_id = app.sessions.create(workspace, llm.config.model, session_id=new_id)
    elif not forked_from and row is not None and row["model"] != llm.config.model:
        app.sessions.touch(session_id, model=llm.config.model)  # resumed with --model: the row follows
    lock = claim_session(app, session_id)
    session = AgentSession(session_parts(app), session_id, llm, bus, permissions, extensions=loop_extensions(app).new())
    session.lock = lock
    if forked_from is not None:
        session.forked_from = forked_from
        for ext in session.each_extension():
            ext.on_session_fork(session, forked_from)
    session.start()
    return session
