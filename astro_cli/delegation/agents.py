"""Agent definitions: `<workspace>/.astro/agents/*.md` and `ASTRO_HOME/agents/*.md`.

A definition is a Markdown file with YAML frontmatter (name, description, tools, model,
max_steps, runtime_context, inherit) whose body opens the subagent's system prompt, as in Claude
Code's agents; `inherit: [skills, memory]` adds those sections of the main prompt after it. A
project definition replaces a user one of the same name. The 'sub-agents' prompt section lists
them (002's layer 4) and says that only these names may be used; the catalog re-reads the
folders only when a file changes, so the section stays byte-identical between steps.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from astro_cli.frontmatter import FrontmatterError, parse_frontmatter
from astro_cli.prompt.tags import escape_tags

if TYPE_CHECKING:
    from astro_cli.app import AppContext
    from astro_cli.prompt.registry import AssemblyInput

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class AgentDefinitionError(Exception):
    """A definition file that cannot be used; the message is one sentence with the reason."""


@dataclass(frozen=True)
class AgentDefinition:
    name: str
    description: str
    system_prompt: str
    path: Path
    layer: str = "project"  # project | user
    tools: tuple[str, ...] | None = None  # None: every tool except the delegation ones
    model: str | None = None  # None: the parent's model
    max_steps: int | None = None
    runtime_context: bool = True  # false: its runs get no environment message (a suppressor for their scope)
    inherit: tuple[str, ...] = ()  # sections of the main prompt its runs keep (003's selective inheritance)


def _string_list(value: Any, field: str, path: Path, what: str = "tool names") -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        items = [part.strip() for part in re.split(r"[,\s]+", value) if part.strip()]
    elif isinstance(value, list) and all(isinstance(item, str) for item in value):
        items = [item.strip() for item in value if item.strip()]
    else:
        raise AgentDefinitionError(f"{path}: '{field}' should be a list of {what} or a comma-separated string.")
    return tuple(items) if items else None


def parse_agent(text: str, path: Path, layer: str = "project") -> AgentDefinition:
    """Parse one definition; raises AgentDefinitionError with one sentence for anything unusable."""
    try:
        meta, body = parse_frontmatter(text)
    except FrontmatterError as exc:
        raise AgentDefinitionError(f"{path}: {exc}.") from None
    name = meta.get("name", path.stem)
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise AgentDefinitionError(f"{path}: name {name!r} should be letters, digits, '.', '_' or '-'.")
    if name == "main":
        raise AgentDefinitionError(f"{path}: the name 'main' is reserved for the main agent.")
    description = meta.get("description")
    if not isinstance(description, str) or not description.strip():
        raise AgentDefinitionError(f"{path}: a 'description' is needed (it is what the main agent sees).")
    body = body.strip()
    if not body:
        raise AgentDefinitionError(f"{path}: the body (the agent's system prompt) is empty.")
    model = meta.get("model")
    if model is not None and not isinstance(model, str):
        raise AgentDefinitionError(f"{path}: 'model' should be a litellm model string or 'inherit'.")
    if isinstance(model, str) and model.strip().lower() in ("", "inherit"):
        model = None
    max_steps = meta.get("max_steps", meta.get("max-steps"))
    if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1):
        raise AgentDefinitionError(f"{path}: 'max_steps' should be a whole number of at least 1.")
    runtime_context = meta.get("runtime_context", meta.get("runtime-context", True))
    if not isinstance(runtime_context, bool):
        raise AgentDefinitionError(f"{path}: 'runtime_context' should be true or false.")
    return AgentDefinition(
        name=name,
        description=" ".join(description.split()),
        system_prompt=body,
        path=path,
        layer=layer,
        tools=_string_list(meta.get("tools"), "tools", path),
        model=model.strip() if isinstance(model, str) else None,
        max_steps=max_steps,
        runtime_context=runtime_context,
        inherit=_string_list(meta.get("inherit"), "inherit", path, "prompt section names") or (),
    )


class AgentCatalog:
    """The definitions of the user and the project, re-read only when a file changes."""

    def __init__(self, app: AppContext) -> None:
        self.dirs = [("user", app.home.agents_dir), ("project", app.workspace.agents_dir)]
        self._lock = threading.Lock()
        self._signature: tuple[Any, ...] | None = None
        self._agents: dict[str, AgentDefinition] = {}
        self._problems: dict[str, str] = {}  # name (file stem) -> reason
        self._section: str | None = None

    def _files(self) -> list[tuple[str, Path, int, int]]:
        found = []
        for layer, folder in self.dirs:
            try:
                entries = sorted(folder.glob("*.md"))
            except OSError:
                continue
            for path in entries:
                try:
                    stat = path.stat()
                except OSError:
                    continue
                found.append((layer, path, stat.st_mtime_ns, stat.st_size))
        return found

    def refresh(self) -> None:
        files = self._files()
        signature = tuple((str(p), m, s) for _, p, m, s in files)
        with self._lock:
            if signature == self._signature:
                return
            agents: dict[str, AgentDefinition] = {}
            problems: dict[str, str] = {}
            for layer, path, _, _ in files:  # user first, project after: the project wins
                try:
                    definition = parse_agent(path.read_text(encoding="utf-8"), path, layer)
                except (OSError, UnicodeDecodeError) as exc:
                    problems[path.stem] = f"{path}: cannot be read ({exc})."
                    continue
                except AgentDefinitionError as exc:
                    problems[path.stem] = str(exc)
                    continue
                agents[definition.name] = definition
                problems.pop(definition.name, None)
            self._agents, self._problems, self._signature = agents, problems, signature
            self._section = _section_text(agents)

    def all(self) -> dict[str, AgentDefinition]:
        self.refresh()
        return dict(self._agents)

    def problems(self) -> dict[str, str]:
        self.refresh()
        return dict(self._problems)

    def get(self, name: str) -> AgentDefinition:
        """The definition called `name`, or AgentDefinitionError naming the valid ones."""
        self.refresh()
        if name in self._agents:
            return self._agents[name]
        if name in self._problems:
            raise AgentDefinitionError(f"agent '{name}' cannot be used: {self._problems[name]}")
        valid = ", ".join(sorted(self._agents)) or "none are defined"
        raise AgentDefinitionError(
            f"there is no agent named '{name}'. Valid agent names: {valid}. "
            "Omit 'agent' for a general-purpose subagent."
        )

    def section(self, data: AssemblyInput) -> str | None:
        """The 'sub-agents' prompt section: only when definitions exist and the subagent tool is visible."""
        if not any(tool.name == "subagent" for tool in data.tools):
            return None
        self.refresh()
        return self._section


def _section_text(agents: dict[str, AgentDefinition]) -> str | None:
    if not agents:
        return None
    lines = ["Sub-agents you can delegate to with the subagent tool (argument `agent`):"]
    lines += [escape_tags(f"- {a.name}: {a.description}") for a in sorted(agents.values(), key=lambda a: a.name)]
    lines.append(
        "Use only the names listed above for `agent`; any other name is refused. "
        "Without `agent`, the subagent is a general research assistant."
    )
    return "\n".join(lines)


def agent_catalog(app: AppContext) -> AgentCatalog:
    return app.service(AgentCatalog, lambda: AgentCatalog(app))
