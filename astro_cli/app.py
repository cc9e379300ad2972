"""The application context: settings, paths, database and registries, passed explicitly everywhere.

There is no global state: the CLI builds one AppContext per process (tests build many), and
every part reaches what it needs through it. Heavy parts (the database, the registries) are
built on first use, so commands that need none of them stay fast.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from astro_cli.by_kind import ByKind
from astro_cli.config import Settings
from astro_cli.security.trust import TrustState
from astro_cli.workspace import AstroHome, Workspace

if TYPE_CHECKING:
    from astro_cli.keystore import KeyStore
    from astro_cli.prompt.registry import PromptRegistry
    from astro_cli.security.paths import Confinement
    from astro_cli.security.secrets import Redactor
    from astro_cli.store.db import Database
    from astro_cli.store.sessions import SessionStore
    from astro_cli.tools.registry import ToolRegistry

log = logging.getLogger(__name__)
T = TypeVar("T")
NO_MODEL = "(none)"  # what {{model}} says when no model is configured (astro prompt show before setup)


class AppServices(ByKind):
    """The app's long-lived objects, one per class: `app.service(Kind, make)` makes one on first use,
    `find(Kind)` peeks without making, `put(obj)` stores one a feature made itself."""


class AppContext:
    def __init__(
        self, settings: Settings, workspace: Workspace, home: AstroHome, trust: TrustState | None = None
    ) -> None:
        self.settings = settings
        self.workspace = workspace
        self.home = home
        # Built without a trust store (tests, benchmarks): the folder is trusted as it is.
        self.trust = trust or TrustState(workspace.root)
        self.warnings: list[str] = list(settings.warnings)
        # Features keep their long-lived objects here, found by class (skill registry, memory, library...).
        self.services = AppServices()
        self._closers: list[Callable[[], None]] = []
        self._features_installed = False
        # False: a database this process created and left empty is removed at close (a command that
        # only read, or failed, leaves nothing behind); `astro init` sets it, it lays the folder out.
        self.keep_database = False

    # --- storage ---------------------------------------------------------------------------
    @cached_property
    def db(self) -> Database:
        from astro_cli.store.db import Database, remove_if_unused

        path, folder = self.workspace.db_path, self.workspace.astro_dir
        made_folder, made_file = not folder.exists(), not path.exists()
        database = Database(path)
        if made_file:  # a command that only read, or failed, leaves no .astro/ behind (runs after close)

            def remove_unused() -> None:
                if not self.keep_database:
                    remove_if_unused(path, folder if made_folder else None)

            self.on_close(remove_unused)
        self.on_close(database.close)
        return database

    @cached_property
    def sessions(self) -> SessionStore:
        from astro_cli.store.sessions import SessionStore

        return SessionStore(self.db)

    @cached_property
    def keys(self) -> KeyStore:
        """ASTRO_HOME/keys.yaml, one reader per process: parsed again only when the file changes."""
        from astro_cli.keystore import KeyStore

        return KeyStore.at(self.home.root)

    # --- safety ----------------------------------------------------------------------------
    @cached_property
    def redactor(self) -> Redactor:
        """Every known secret, replaced by [REDACTED:NAME] in what is stored, shown or sent."""
        import os

        from astro_cli.security.secrets import Redactor

        return Redactor.from_environment(os.environ, self.keys.secrets())

    @cached_property
    def confinement(self) -> Confinement:
        """Where tools may read and write: the workspace and allowed_paths, minus astro's own state."""
        from astro_cli.security.paths import Confinement

        return Confinement.for_workspace(self.workspace, self.home, self.allowed_roots(), self.executed_files)

    @cached_property
    def executed_files(self) -> list[Path]:
        """Workspace files a hook or MCP server runs: protected like astro's state (security/executed.py)."""
        from astro_cli.security.executed import executed_files

        return executed_files(self.workspace, self.settings)

    # --- registries ------------------------------------------------------------------------
    @cached_property
    def tools(self) -> ToolRegistry:
        from astro_cli.tools.registry import ToolRegistry

        return ToolRegistry()

    @cached_property
    def prompt(self) -> PromptRegistry:
        from astro_cli.prompt.registry import PromptRegistry
        from astro_cli.prompt.sections import register_default_sections

        registry = PromptRegistry()
        register_default_sections(registry, self.settings)
        self._register_variables(registry)
        return registry

    def _register_variables(self, registry: PromptRegistry) -> None:
        from datetime import date

        registry.register_variable("cwd", lambda: str(Path.cwd()))
        registry.register_variable("workspace", lambda: str(self.workspace.root))
        registry.register_variable("date", lambda: date.today().isoformat())
        registry.register_variable("model", self._model_name)

    def _model_name(self) -> str:
        """{{model}}: the model that will really be used (agent/model_choice.py decides it), or
        NO_MODEL when none is configured: showing a prompt must not need a model."""
        from astro_cli.agent.model_choice import model_choice

        choice = model_choice(self)
        return choice.model if choice is not None else NO_MODEL

    def service(self, kind: type[T], factory: Callable[[], T] | None = None) -> T:
        """The app's one `kind` object, made by `factory` (default `kind()`) on first use, once even across threads."""
        return self.services.get(kind, factory)

    def install_features(self) -> AppContext:
        """Register every feature's tools, prompt sections and loop extensions (once)."""
        if not self._features_installed:
            import importlib

            from astro_cli.features import FEATURES

            self._features_installed = True
            for name in FEATURES:
                importlib.import_module(name).install(self)
        return self

    def allowed_roots(self) -> list[Path]:
        return [Path(p).expanduser() for p in self.settings.typed["allowed_paths"] or []]

    def warn(self, text: str) -> None:
        if text not in self.warnings:
            self.warnings.append(text)

    # --- lifetime --------------------------------------------------------------------------
    def on_close(self, closer: Callable[[], None]) -> None:
        self._closers.append(closer)

    def close(self) -> None:
        while self._closers:
            closer = self._closers.pop()
            try:
                closer()
            except Exception:  # noqa: BLE001 - closing must never hide the real outcome
                log.debug("closing %r failed", closer, exc_info=True)
