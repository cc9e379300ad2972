"""Plugins: Python packages that join astro through the entry point group `astro.plugins`.

A plugin package declares, in its pyproject.toml,

    [project.entry-points."astro.plugins"]
    myplugin = "my_package.astro_plugin:register"

and the object named there is either a function `register(api)` or an object with a
`register(api)` method. Through the PluginAPI it may add tools, Python callbacks for the same
lifecycle events as the command hooks, loop extensions, prompt sections and variables, assemble
listeners that change the system prompt and tool schemas (docs/prompt.md, "The assemble waterfall"),
runtime-context sources, text readers, paper sources, slash commands and transcript sections: the same
extension points the built-in features use (astro_cli/extensions.py lists them). The same module or object may
define `register_commands(cli)` for `astro` commands (plugin_commands.py; name the module in the entry
point to define both). The API hands out the settings, never the app. This feature
installs last, so a plugin tool or reader may replace a built-in of the same name. A plugin that
fails to load is reported once and skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from astro_cli.agent.extensions import LoopExtension, loop_extensions
from astro_cli.hooks.runner import PythonCallback, hook_runner
from astro_cli.plugin_commands import GROUP

if TYPE_CHECKING:
    from astro_cli.app import AppContext
    from astro_cli.config import Settings
    from astro_cli.extensions import PaperSource, TextReader
    from astro_cli.prompt.context import ContextProvider
    from astro_cli.prompt.registry import SectionProvider, VariableProvider
    from astro_cli.prompt.waterfall import AssembleListener
    from astro_cli.slash import ViewHandler
    from astro_cli.tools.base import Tool
    from astro_cli.transcript_sections import SessionRow

GLOBAL = "global"  # the prompt registry's global layer (prompt/layers.py), kept off this module's imports



@dataclass
class PluginInfo:
    name: str
    value: str
    loaded: bool = False
    error: str = ""
    tools: list[str] = field(default_factory=list)
    hooks: list[str] = field(default_factory=list)
    prompt: list[str] = field(default_factory=list)  # sections, variables, assemble listeners, runtime context
    readers: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    slash: list[str] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)  # transcript sections


@dataclass
class InstalledPlugins:
    """The plugins found at install, loaded or not (`astro hooks list` shows them)."""

    infos: list[PluginInfo] = field(default_factory=list)


class PluginAPI:
    """What a plugin's register(api) may do: each method is one extension point (extensions.py); the
    settings are readable, the app itself is not handed out."""

    def __init__(self, app: AppContext, info: PluginInfo) -> None:
        self._app = app
        self.info = info
        self.name = info.name

    @property
    def settings(self) -> Settings:
        """The layered settings, to read."""
        return self._app.settings

    def add_text_reader(self, reader: TextReader) -> None:
        """A kind of paper file the library reads (`astro library add`, parse_paper); see extensions.TextReader.
        A reader of the same name replaces the built-in one."""
        from astro_cli.extensions import extension_points

        extension_points(self._app).add_text_reader(reader)
        self.info.readers.append(reader.name)

    def add_paper_source(self, source: PaperSource) -> None:
        """A service papers come from (search, identifiers to download); see extensions.PaperSource.
        A source of the same name replaces the built-in one."""
        from astro_cli.extensions import extension_points

        extension_points(self._app).add_paper_source(source)
        self.info.sources.append(source.name)

    def add_section(self, name: str, order: float, text: str | None = None, provider: SectionProvider | None = None,
                    scope: str = GLOBAL) -> None:
        """A system-prompt section (docs/prompt.md): fixed `text`, or `provider(data)` returning it or None."""
        self._app.prompt.add(name, order, text=text, provider=provider, scope=scope)
        self.info.prompt.append(f"section '{name}'" + (f" ({scope})" if scope != GLOBAL else ""))

    def add_variable(self, name: str, provider: VariableProvider, scope: str = GLOBAL) -> None:
        """A `{{name}}` the prompt's sections may use."""
        self._app.prompt.register_variable(name, provider, scope=scope)
        self.info.prompt.append(f"variable '{name}'" + (f" ({scope})" if scope != GLOBAL else ""))

    def add_tool(self, tool: Tool) -> None:
        """Register a tool (it replaces a built-in of the same name)."""
        self._app.tools.register(tool)
        self.info.tools.append(tool.name)

    def on(self, event: str, callback: PythonCallback, matcher: str | None = None) -> None:
        """Call `callback(payload) -> dict | None` at `event`; the dict has the fields a hook's stdout JSON has."""
        hook_runner(self._app).add_python(event, callback, matcher=matcher, plugin=self.name)
        self.info.hooks.append(event if not matcher else f"{event} ({matcher})")

    def add_extension(self, factory: Callable[[], LoopExtension]) -> None:
        """A full loop extension, through the seam the built-in features use (agent/extensions.py)."""
        loop_extensions(self._app).add(factory)

    def on_assemble(self, listener: AssembleListener, scope: str = GLOBAL) -> None:
        """Change each assembled prompt of `scope` (every one by default): `listener(draft)` edits the
        draft's sections, tool schemas and runtime context, or returns a new draft (prompt/waterfall.py)."""
        self._app.prompt.on_assemble(listener, scope)
        self.info.prompt.append(f"assemble listener {getattr(listener, '__name__', repr(listener))}"
                                + (f" ({scope})" if scope != GLOBAL else ""))

    def add_slash_command(self, name: str, help: str, handler: ViewHandler, usage: str = "") -> None:
        """`/NAME args` in the REPL: `handler(view, args)` with a slash.SlashView (print, settings, the
        session's id, queue a prompt); it replaces a command of the same name."""
        from astro_cli.slash import SlashCommand, SlashView, slash_commands

        slash_commands(self._app).register(
            SlashCommand(name, help, lambda ctx, args: handler(SlashView.of(ctx), args), usage=usage))
        self.info.slash.append(f"/{name}")

    def add_transcript_section(self, title: str, render: Callable[[SessionRow], str | None]) -> None:
        """A section of `astro sessions show/export`: `render(row)` gets the session's row (id, title, model,
        times...) and returns Markdown, or None when it has nothing for this session."""
        from astro_cli.transcript_sections import TranscriptSection, transcript_sections

        transcript_sections(self._app).add(TranscriptSection(title, lambda app, row: render(row)))
        self.info.sections.append(title)

    def add_context(self, source: str, order: float, provider: ContextProvider, scope: str = GLOBAL) -> None:
        """Facts for the environment message, under `[source]`: `provider(data)` returns a mapping or None."""
        self._app.prompt.add_context(source, order, provider, scope)
        self.info.prompt.append(f"runtime context '{source}'" + (f" ({scope})" if scope != GLOBAL else ""))


def _entry_points() -> list[Any]:
    from importlib.metadata import entry_points

    return list(entry_points(group=GROUP))


def install(app: AppContext) -> None:
    runner = hook_runner(app)
    infos = app.services.put(InstalledPlugins()).infos
    try:
        points = _entry_points()
    except Exception as exc:  # noqa: BLE001 - broken package metadata must not stop astro
        runner.problems.append(f"plugins could not be listed: {type(exc).__name__}: {exc}")
        return
    for point in sorted(points, key=lambda p: p.name):
        info = PluginInfo(point.name, point.value)
        infos.append(info)
        try:
            obj = point.load()
            register = getattr(obj, "register", None) or (obj if callable(obj) else None)
            if register is None:
                raise TypeError(f"{point.value} is neither a register(api) function nor has a register method")
            register(PluginAPI(app, info))
            info.loaded = True
        except Exception as exc:  # noqa: BLE001 - one broken plugin must not stop astro
            info.error = f"{type(exc).__name__}: {exc}"
            runner.problems.append(f"plugin '{point.name}' ({point.value}) could not be loaded: {info.error}")
