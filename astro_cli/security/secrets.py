"""Known secrets and their redaction: `[REDACTED:NAME]` wherever a secret's value would be shown or stored.

A secret is the value of any environment variable whose name holds KEY, TOKEN, SECRET or PASSWORD
(at least 8 characters, so that `KEYBOARD=us` stays readable), and every key of astro's own key
store (`ASTRO_HOME/keys.yaml`). The redactor is applied where text enters a store, a transcript or
a request: messages, tool results, hook output, errors and notices.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

SECRET_NAME_HINTS = ("KEY", "TOKEN", "SECRET", "PASSWORD")
MIN_SECRET_CHARS = 8
KEY_STORE_FILE = "keys.yaml"


def is_secret_name(name: str) -> bool:
    upper = name.upper()
    return any(hint in upper for hint in SECRET_NAME_HINTS)


def secret_environment_names(env: Mapping[str, str]) -> set[str]:
    """Names of the variables in `env` that hold a secret."""
    return {name for name, value in env.items() if is_secret_name(name) and len(value or "") >= MIN_SECRET_CHARS}


def environment_without_secrets(env: Mapping[str, str], keep: Iterable[str] = ()) -> dict[str, str]:
    """`env` without the variables whose names mark a secret (any length), except those in `keep`.

    What commands astro starts (run_bash, hooks) get: a command the model wrote never sees a key.
    """
    kept = set(keep)
    return {name: value for name, value in env.items() if name in kept or not is_secret_name(name)}


def key_store_secrets(home: Path) -> dict[str, str]:
    """The keys of `ASTRO_HOME/keys.yaml` (provider -> key); empty when the file is absent or unreadable."""
    path = home / KEY_STORE_FILE
    if not path.is_file():
        return {}
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {f"keys.yaml:{name}": value for name, value in data.items() if isinstance(value, str)}


class Redactor:
    """Replaces every known secret value in text with `[REDACTED:NAME]`; thread-safe, cheap when idle."""

    def __init__(self, secrets: Mapping[str, str] | None = None) -> None:
        self._by_value: dict[str, str] = {}
        self._lock = threading.Lock()
        self._pattern: re.Pattern[str] | None = None
        for name, value in (secrets or {}).items():
            self.add(name, value)

    @classmethod
    def from_environment(cls, env: Mapping[str, str], home: Path | None = None) -> Redactor:
        found = {name: env[name] for name in sorted(secret_environment_names(env))}
        if home is not None:
            found.update(key_store_secrets(home))
        return cls(found)

    def add(self, name: str, value: str) -> None:
        """Remember one more secret (a key typed in during the session, for example)."""
        if not isinstance(value, str) or len(value) < MIN_SECRET_CHARS:
            return
        with self._lock:
            self._by_value.setdefault(value, name)
            values = sorted(self._by_value, key=len, reverse=True)  # longest first: no partial leftovers
            self._pattern = re.compile("|".join(re.escape(v) for v in values))

    @property
    def names(self) -> list[str]:
        return sorted(set(self._by_value.values()))

    def redact(self, text: str) -> str:
        pattern = self._pattern
        if pattern is None or not text:
            return text
        return pattern.sub(lambda m: f"[REDACTED:{self._by_value[m.group(0)]}]", text)

    def redact_data(self, value: Any) -> Any:
        """The same for every string inside lists and dicts (messages, tool arguments, metadata).

        Returns `value` itself when it holds no secret, so callers keep their objects.
        """
        if self._pattern is None:
            return value
        if isinstance(value, str):
            return self.redact(value)
        if isinstance(value, dict):
            items = {key: self.redact_data(item) for key, item in value.items()}
            return value if all(items[key] is item for key, item in value.items()) else items
        if isinstance(value, (list, tuple)):
            parts = [self.redact_data(item) for item in value]
            return value if all(a is b for a, b in zip(parts, value)) else type(value)(parts)
        return value

    def contains_secret(self, text: str) -> bool:
        pattern = self._pattern
        return bool(pattern is not None and text and pattern.search(text))
