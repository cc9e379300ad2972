"""One skill: a `<name>/SKILL.md` file with YAML frontmatter and a Markdown body.

The format is Claude Code's, so skills written for it load here unchanged. Parsing is strict
about what makes a skill unusable (broken YAML, no name, no description, a name that differs
from its folder, a known field of the wrong kind) and lenient about the rest: unknown fields are
kept in `extra`. Every rejection is a SkillError whose message is one sentence naming the reason;
nothing here ever raises anything else for any file content.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from astro_cli.frontmatter import FrontmatterError, parse_frontmatter

SKILL_FILE = "SKILL.md"
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
CONTEXTS = ("inline", "fork")
# Frontmatter keys astro understands; everything else is kept in Skill.extra.
KNOWN_KEYS = {
    "name",
    "description",
    "when_to_use",
    "when-to-use",
    "allowed-tools",
    "allowed_tools",
    "model",
    "context",
    "user-invocable",
    "disable-model-invocation",
    "paths",
    "argument-hint",
    "arguments",
    "license",
    "metadata",
    "version",
}
_LIST_SPLIT = re.compile(r"[\s,]+")

class SkillError(Exception):
    """A SKILL.md that cannot be used; the message is the reason, in one sentence."""


@dataclass(frozen=True)
class Skill:
    """A parsed skill. `layer` is where it was found: bundled, user or project."""

    name: str
    description: str
    body: str
    path: Path
    layer: str = "project"
    when_to_use: str = ""
    allowed_tools: tuple[str, ...] = ()
    model: str = "inherit"
    context: str = "inline"
    user_invocable: bool = True
    disable_model_invocation: bool = False
    paths: tuple[str, ...] = ()
    argument_hint: str = ""
    arguments: Any = None
    license: str = ""
    metadata: Any = None
    version: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def directory(self) -> Path:
        return self.path.parent

    @property
    def model_invocable(self) -> bool:
        """May the model see it in the listing and load it (003: user-invocable and not disabled)."""
        return self.user_invocable and not self.disable_model_invocation

    @property
    def conditional(self) -> bool:
        return bool(self.paths)

    def entry(self) -> str:
        """The one-line listing entry: `- name: description - when_to_use` (newlines flattened)."""
        text = f"- {self.name}: {_one_line(self.description)}"
        if self.when_to_use:
            text += f" - {_one_line(self.when_to_use)}"
        return text

    def render(self, arguments: str = "") -> str:
        """The body with $ARGUMENTS and ${SKILL_DIR} filled; arguments are appended if it has no slot."""
        directory = str(self.directory)
        body = self.body.replace("${SKILL_DIR}", directory).replace("${CLAUDE_SKILL_DIR}", directory)
        arguments = (arguments or "").strip()
        if "$ARGUMENTS" in body:
            body = body.replace("$ARGUMENTS", arguments)
        elif arguments:
            body = f"{body.rstrip()}\n\nARGUMENTS: {arguments}"
        return body

    def to_dict(self) -> dict[str, Any]:
        """The fields for `astro skills show --json` / `list --json` (the body is left out)."""
        return {
            "name": self.name,
            "description": self.description,
            "when_to_use": self.when_to_use,
            "layer": self.layer,
            "path": str(self.path),
            "allowed_tools": list(self.allowed_tools),
            "model": self.model,
            "context": self.context,
            "user_invocable": self.user_invocable,
            "disable_model_invocation": self.disable_model_invocation,
            "paths": list(self.paths),
            "argument_hint": self.argument_hint,
            "license": self.license,
            "version": self.version,
            "extra": self.extra,
        }


def _one_line(text: str) -> str:
    return " ".join(text.split())


def first_sentence(text: str) -> str:
    """The description up to its first sentence end ('. ', '! ', '? ' or a line break), on one line."""
    flat = text.strip().split("\n\n")[0]
    match = re.search(r"(?<!e\.g)(?<!i\.e)(?<!etc)(?<!\bvs)(?<!\bal)[.!?](?=\s|$)", flat)
    return _one_line(flat[: match.end()] if match else flat)


def _text(meta: dict[str, Any], key: str, required: bool = False) -> str:
    value = meta.get(key)
    if value is None:
        if required:
            raise SkillError(f"it has no '{key}' in its frontmatter")
        return ""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise SkillError(f"'{key}' must be text, not {type(value).__name__}")
    value = str(value).strip()
    if required and not value:
        raise SkillError(f"its '{key}' is empty")
    return value


def _flag(meta: dict[str, Any], key: str, default: bool) -> bool:
    value = meta.get(key)
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "yes", "false", "no"):
        return value.strip().lower() in ("true", "yes")
    raise SkillError(f"'{key}' must be true or false, not {value!r}")


def _names(meta: dict[str, Any], key: str) -> tuple[str, ...]:
    """A YAML list, or a space- or comma-separated string (`Bash(git add:*)` keeps its inner spaces)."""
    value = meta.get(key)
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(_split_outside_parens(value))
    if isinstance(value, list) and all(
        isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value
    ):
        return tuple(str(v).strip() for v in value if str(v).strip())
    raise SkillError(f"'{key}' must be a list of names or a space-separated string")


def _split_outside_parens(text: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(depth - 1, 0)
        if depth == 0 and (char.isspace() or char == ","):
            if current:
                parts.append("".join(current))
            current = []
        else:
            current.append(char)
    if current:
        parts.append("".join(current))
    return parts


def parse_skill(path: Path, layer: str = "project", text: str | None = None) -> Skill:
    """Parse `path` (a SKILL.md inside its skill's folder); raise SkillError with the reason."""
    if text is None:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise SkillError("it is not UTF-8 text") from None
        except OSError as exc:
            raise SkillError(f"it cannot be read ({exc.strerror or exc})") from None
    try:
        meta, body = parse_frontmatter(text)
    except FrontmatterError as exc:
        raise SkillError(str(exc)) from None
    return _build(meta, body, path, layer)


def _build(meta: dict[str, Any], body: str, path: Path, layer: str) -> Skill:
    name = _text(meta, "name", required=True)
    description = _text(meta, "description", required=True)
    folder = path.parent.name
    if name != folder:
        raise SkillError(f"its name '{name}' differs from its folder '{folder}' (they must match)")
    if not NAME_RE.match(name):
        raise SkillError(
            f"its name '{name}' must be letters, digits, '-', '_' or '.' (at most 64 characters)"
        )
    context = _text(meta, "context") or "inline"
    if context not in CONTEXTS:
        raise SkillError(f"'context' must be inline or fork, not '{context}'")
    tools_key = "allowed-tools" if "allowed-tools" in meta else "allowed_tools"
    when_key = "when_to_use" if "when_to_use" in meta else "when-to-use"
    paths = _names(meta, "paths")
    return Skill(
        name=name,
        description=description,
        body=body,
        path=path,
        layer=layer,
        when_to_use=_text(meta, when_key),
        allowed_tools=_names(meta, tools_key),
        model=_text(meta, "model") or "inherit",
        context=context,
        user_invocable=_flag(meta, "user-invocable", True),
        disable_model_invocation=_flag(meta, "disable-model-invocation", False),
        paths=paths,
        argument_hint=_text(meta, "argument-hint"),
        arguments=meta.get("arguments"),
        license=_text(meta, "license"),
        metadata=meta.get("metadata"),
        version=_text(meta, "version"),
        extra={k: v for k, v in meta.items() if k not in KNOWN_KEYS},
    )


def scaffold(name: str) -> str:
    """The text of a new SKILL.md that validates as it is (`astro skills new NAME`)."""
    return f"""---
name: {name}
description: One sentence saying what this skill does for the researcher.
when_to_use: When the user asks for ... (the situations in which the model should load it)
allowed-tools: []   # tools this skill may use without asking, e.g. [search_papers, file_write]
# argument-hint: "[target or topic]"
# paths: ["**/*.fits"]   # list the skill only after a matching file is read, written or searched
# context: inline        # or fork: runs in a subagent with a context of its own
---

# {name}

Write the method here, step by step, in plain Markdown. Name the astro tools each step uses
(search_papers, get_paper_content, query_target, file_write, ...).

The text after `/{name}` (or load_skill's `arguments`) replaces $ARGUMENTS; ${{SKILL_DIR}} is
this skill's folder, for scripts and templates kept next to this file.
"""
