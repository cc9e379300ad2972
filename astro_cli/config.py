"""Layered settings: defaults < ASTRO_HOME/config.yaml < <workspace>/.astro/config.yaml < ASTRO_* env < flags.

Each resolved value remembers where it came from, so `astro config show` can say why a setting
has the value it has. Files are nested YAML (`skills: {budget_chars: 4000}`); keys are dotted.
"""

from __future__ import annotations

import math
import os
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from astro_cli.config_schema import LOWER, RAISE, SCHEMA, UNLIMITED_AT_ZERO, USER, Key

if TYPE_CHECKING:
    from astro_cli.config_view import SettingValues


class ConfigError(Exception):
    """A configuration value that cannot be used; the message is one sentence for the user."""


COMMAND_LINE = "command line"  # the source of a value given as a flag (--model, --max-steps, ...)
_PREFIXES = {name.split(".")[0] for name in SCHEMA if "." in name}


def _flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if name in SCHEMA:
            flat[name] = value
        elif isinstance(value, Mapping) and name in _PREFIXES:
            flat.update(_flatten(value, name + "."))
        else:
            flat[name] = value
    return flat


def _type_ok(key: Key, value: Any) -> bool:
    kind = key.type
    if kind.endswith("?"):
        if value is None:
            return True
        kind = kind[:-1]
    if kind == "str":
        return isinstance(value, str)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "list":
        return isinstance(value, list)
    if kind == "dict":
        return isinstance(value, dict)
    return True


_EXPECTED = {
    "str": "a string",
    "int": "a whole number",
    "float": "a number",
    "bool": "true or false",
    "list": "a list",
    "dict": "a mapping",
}


def expected(key: Key) -> str:
    kind = key.type.rstrip("?")
    text = _EXPECTED.get(kind, kind)
    return text + (" or nothing" if key.type.endswith("?") else "")


def _shown(value: Any) -> str:
    """A wrong value as a person wrote it: 'lots', 3, true, a list, a mapping (no Python type names)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return repr(value) if isinstance(value, str) else str(value)


def _coerce(key: Key, value: Any) -> Any:
    if key.type.rstrip("?") == "float" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if key.type.rstrip("?") == "str" and isinstance(value, bool):
        return "on" if value else "off"  # YAML reads a bare `off` as false; the user meant the word
    return value


@dataclass
class Settings:
    """Resolved settings with the source of each value."""

    values: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    # Risky project settings left out because the folder is not trusted: key -> the file it was in.
    withheld: dict[str, str] = field(default_factory=dict)

    def get(self, key: str, default: Any = None) -> Any:
        if key in self.values:
            return self.values[key]
        if key in SCHEMA:
            return SCHEMA[key].default
        return default

    def __getitem__(self, key: str) -> Any:
        return self.get(key)

    @property
    def typed(self) -> SettingValues:
        """The settings by their schema types: `settings.typed["max_steps"]` is an int and a misspelt
        key is a mypy error (config_view.py, generated from the schema). A live view: a value set
        later is seen."""
        return cast("SettingValues", _TypedView(self))

    def source(self, key: str) -> str:
        return self.sources.get(key, "default")

    def set(self, key: str, value: Any, source: str) -> None:
        self.values[key] = value
        self.sources[key] = source

    def section(self, prefix: str) -> dict[str, Any]:
        """All keys under `prefix.` as a flat dict without the prefix."""
        start = prefix + "."
        return {k[len(start) :]: self.get(k) for k in SCHEMA if k.startswith(start)}


class _TypedView(Mapping[str, Any]):
    """What `Settings.typed` is at run time: each key read from the settings when asked."""

    __slots__ = ("_settings",)

    def __init__(self, settings: Settings) -> None:
        self._settings = settings

    def __getitem__(self, key: str) -> Any:
        if key not in SCHEMA:
            raise KeyError(key)
        return self._settings.get(key)

    def __iter__(self) -> Iterator[str]:
        return iter(SCHEMA)

    def __len__(self) -> int:
        return len(SCHEMA)


def _apply_layer(settings: Settings, flat: dict[str, Any], source: str) -> None:
    for name, value in flat.items():
        key = SCHEMA.get(name)
        if key is None:
            from astro_cli.suggest import did_you_mean

            settings.warnings.append(f"{source}: unknown setting '{name}' is ignored{did_you_mean(name, SCHEMA)}.")
            continue
        value = _coerce(key, value)
        problem = check_value(key, value)
        if problem:
            raise ConfigError(f"{source}: '{name}' {problem}.")
        if key.merge == "union" and name in settings.values:
            value = [*settings.values[name], *(item for item in value if item not in settings.values[name])]
        if key.merge == "entries":
            # Each entry of the mapping remembers its own layer (`mcp.servers.NAME`); a later layer's
            # entry replaces one of the same name, the others stay.
            for entry in value:
                settings.sources[f"{name}.{entry}"] = source
            value = {**settings.values.get(name, {}), **value}
        settings.set(name, value, source)


def _guard_project_layer(settings: Settings, flat: dict[str, Any], source: str) -> dict[str, tuple[Any, str]]:
    """Drop what a project may not set (said once each): keys the schema leaves to the user, and
    limits looser than the user's. A value that is no valid value at all stops astro with the
    loader's sentence first. Returns the values that keys with a `bound_by` had before the project."""
    bounded: dict[str, tuple[Any, str]] = {}
    for name in sorted(flat):
        key = SCHEMA.get(name)
        if key is None:
            continue  # the loader warns about an unknown key
        problem = check_value(key, _coerce(key, flat[name]))
        if problem:
            raise ConfigError(f"{source}: '{name}' {problem}.")
        current = settings.get(name)
        if key.bound_by is not None:
            bounded[name] = (current, settings.source(name))
            bounds = [settings.get(key.bound_by), flat.get(key.bound_by), current]
            current = min((b for b in bounds if _is_number(b) and b == b and abs(b) != math.inf), default=current)
        refusal = project_refusal(name, flat[name], current)
        if refusal is not None:
            del flat[name]
            settings.warnings.append(f"{source}: {refusal}")
    return bounded


def project_refusal(name: str, value: Any, current: Any) -> str | None:
    """Why a project's config may not give setting `name` this value while the user's is `current`
    (one sentence), or None when it may. The schema decides (config_schema.Key.project)."""
    key = SCHEMA.get(name)
    if key is None:
        return None
    if key.project == USER:
        return f"'{name}' can only be set in your user config; the project's value is ignored."
    if key.project in (LOWER, RAISE) and _looser(key, value, current):
        return (f"'{name}' {_shown(value)} would loosen your limit of {_shown(current)}; a project can only tighten "
                f"limits, so {_shown(current)} stays (set it in your user config to change it).")
    return None


def loosens_limit(name: str, value: Any, current: Any) -> bool:
    """Whether a project's value of this setting would loosen the user's limit (and so be ignored)."""
    key = SCHEMA.get(name)
    return key is not None and key.project in (LOWER, RAISE) and _looser(key, value, current)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _looser(key: Key, value: Any, current: Any) -> bool:
    """Whether `value` bounds less than `current`. A value that is no valid number (NaN, out of its
    range) is never tighter; a user limit that is unset (None) bounds nothing, so a valid value is."""
    if key.type.rstrip("?") == "bool":
        if not isinstance(value, bool) or not isinstance(current, bool):
            return current is not None
        return value > current if key.project == LOWER else value < current
    if not _is_number(value) or key.out_of_range(value):  # NaN and infinities are out of every range
        return True
    if not _is_number(current):
        return False
    if key.name in UNLIMITED_AT_ZERO:
        value, current = (value or math.inf), (current or math.inf)
    return bool(value > current) if key.project == LOWER else bool(value < current)


def _restore_bounded(settings: Settings, bounded: Mapping[str, tuple[Any, str]], source: str) -> None:
    """A project's value of a key with a `bound_by` that exceeds that key's final value (an
    environment variable or flag lowered it) goes back to the value it had before the project."""
    for name, (before, before_source) in bounded.items():
        key = SCHEMA[name]
        value, bound = settings.get(name), settings.get(key.bound_by or "")
        if settings.source(name) == source and _is_number(value) and _is_number(bound) and value > bound:
            settings.warnings.append(f"{source}: '{name}' {_shown(value)} would loosen your limit of "
                                     f"{_shown(bound)} ('{key.bound_by}'); the project's value is ignored.")
            if before_source == "default":
                settings.values.pop(name, None)
                settings.sources.pop(name, None)
            else:
                settings.set(name, before, before_source)


def read_yaml_file(path: Path) -> dict[str, Any]:
    import yaml

    from astro_cli.safe_yaml import AliasBomb, load_yaml

    try:
        data = load_yaml(path.read_text(encoding="utf-8"))
    except AliasBomb as exc:
        raise ConfigError(f"{path}: not usable YAML: {exc}.") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark else ""
        raise ConfigError(f"{path}: not valid YAML{where}.") from None
    except UnicodeDecodeError as exc:
        line = exc.object.count(b"\n", 0, exc.start) + 1
        raise ConfigError(
            f"{path}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at position {exc.start}, line {line}); "
            "save it as UTF-8."
        ) from None
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:  # `!!int x`, a date like 2025-13-01
        raise ConfigError(f"{path}: holds a value YAML cannot read ({exc}).") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror}).") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of settings at the top level.")
    return data


def _parse_env(key: Key, raw: str) -> Any:
    kind = key.type.rstrip("?")
    if kind == "str":
        return raw
    import yaml

    from astro_cli.safe_yaml import load_yaml

    try:
        value = load_yaml(raw)
    except yaml.YAMLError:
        value = raw
    if kind == "bool" and raw.strip() in ("0", "1"):
        return raw.strip() == "1"  # ASTRO_SANDBOX_ENABLED=0, as ASTRO_WORKER=0
    if kind == "list" and isinstance(value, str):
        value = [part.strip() for part in value.split(",") if part.strip()]
    return value


def parse_value(key: Key, raw: str) -> Any:
    """A value typed on the command line (`config set`), read as an environment variable's is."""
    return _coerce(key, _parse_env(key, raw))


def check_value(key: Key, value: Any) -> str | None:
    """Why `value` cannot be the setting's, as the end of a sentence; None when it can."""
    if not _type_ok(key, value):
        return f"should be {expected(key)}, not {_shown(value)}"
    return key.out_of_range(value)


def read_flat(path: Path) -> dict[str, Any]:
    """A config file as dotted keys (`{}` when it does not exist)."""
    return _flatten(read_yaml_file(path)) if path.is_file() else {}


def load_settings(
    config_files: list[Path],
    env: Mapping[str, str] | None = None,
    flags: Mapping[str, Any] | None = None,
    withhold: Mapping[Path, Collection[str]] | None = None,
    project: Path | None = None,
) -> Settings:
    """Resolve settings from files (in order), the environment and command-line flags.

    `withhold` names, per file, keys to leave out: the risky settings of an untrusted project.
    `project` is the project's config file: it cannot set user-only keys, and its limits only tighten.
    """
    settings = Settings()
    bounded: dict[str, tuple[Any, str]] = {}
    for path in config_files:
        flat = read_flat(path)
        for name in sorted((withhold or {}).get(path, ())):
            if name in flat:
                del flat[name]
                settings.withheld[name] = str(path)
        if project is not None and path == project:
            bounded = _guard_project_layer(settings, flat, str(path))
        _apply_layer(settings, flat, str(path))
    env = os.environ if env is None else env
    for key in SCHEMA.values():
        raw = env.get(key.env_var)
        if raw is not None and raw != "":
            _apply_layer(settings, {key.name: _parse_env(key, raw)}, f"env {key.env_var}")
    for name, value in (flags or {}).items():
        if value is not None:
            _apply_layer(settings, {name: value}, COMMAND_LINE)
    if project is not None:
        _restore_bounded(settings, bounded, str(project))
    validate(settings)
    return settings


CITATION_MODES = ("off", "report", "fix")
INLINE_IMAGE_MODES = ("auto", "kitty", "iterm2", "sixel", "off")  # plots.inline (ui/terminal_images.py)


def validate(settings: Settings) -> None:
    """The ranges the schema declares (one sentence naming the file or variable), then what a type
    alone cannot express. Readers rely on these checks and do not repeat them."""
    for key in SCHEMA.values():
        problem = key.out_of_range(settings.get(key.name))
        if problem:
            raise ConfigError(f"{settings.source(key.name)}: '{key.name}' {problem}.")
    if settings.typed["citations.check"] not in CITATION_MODES:
        raise ConfigError(f"{settings.source('citations.check')}: 'citations.check' must be off, report or fix, "
                          f"not {settings.typed['citations.check']!r}.")
    if settings.typed["plots.inline"] not in INLINE_IMAGE_MODES:
        raise ConfigError(f"{settings.source('plots.inline')}: 'plots.inline' must be auto, kitty, iterm2, sixel or "
                          f"off, not {settings.typed['plots.inline']!r}.")
    order = settings.typed["tool_order"]
    if order is not None:
        markers = [name for name in order if name == "<unlisted-tools>"]
        if len(markers) != 1:
            raise ConfigError(
                f"{settings.source('tool_order')}: 'tool_order' needs exactly one '<unlisted-tools>' marker."
            )
        dupes = sorted({name for name in order if order.count(name) > 1})
        if dupes:
            raise ConfigError(f"{settings.source('tool_order')}: 'tool_order' lists {', '.join(dupes)} twice.")
