"""Known secrets and their redaction: `[REDACTED:NAME]` wherever a secret's value would be shown or stored.

A secret is known three ways:
- by name: the value of any environment variable whose name holds KEY, TOKEN, SECRET or PASSWORD
  (at least 8 characters, so that `KEYBOARD=us` stays readable), and every key of astro's own key
  store (`ASTRO_HOME/keys.yaml`);
- by value, whatever variable or file holds it, in its base64 and URL-encoded forms too
  (secret_forms.py);
- by shape (`redact_shapes`, the rule set in secret_shapes.py, ported from gitleaks and
  detect-secrets): the password of a URL, a `password=PW` parameter, provider keys and tokens
  (OpenAI, Anthropic, GitHub, GitLab, Hugging Face, Groq, xAI, Stripe, npm, PyPI, AWS, Google,
  Slack, ADS), JWTs, PEM private keys and `DB_PASSWORD=...` style assignments;
- as a store: files that only hold credentials (ASTRO_HOME, ~/.pgpass, ~/.ssh, ...) are never
  read by any tool nor by the library (`secret_stores`; security/paths.py refuses them).

`Redactor.redact` is the one redaction every path uses (tool results, messages, the session
database, the debug log, hook output, errors, `config show`, text stored in the library).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from astro_cli.security.secret_forms import encoded_forms
from astro_cli.security.secret_shapes import CHECKS, PASSWORD_RULES, SECRET_SHAPES

SECRET_NAME_HINTS = ("KEY", "TOKEN", "SECRET", "PASSWORD")
MIN_SECRET_CHARS = 8



def redact_shapes(text: str) -> str:
    """`text` with every secret recognised by its shape (secret_shapes.py) replaced by `[REDACTED:KIND]`."""
    if not text:
        return text
    lowered = text.lower()
    for kind, pattern, hints in SECRET_SHAPES:
        if hints and not any(hint in lowered for hint in hints):
            continue
        marker = f"[REDACTED:{kind}]"
        check = CHECKS.get(kind)
        text = pattern.sub(lambda match: _replace_group(match, marker, check), text)  # noqa: B023 - used at once
    return text


def _replace_group(match: re.Match[str], marker: str, check: Callable[[str], bool] | None = None) -> str:
    start, end = match.span("secret")
    whole = match.group(0)
    offset = match.start()
    if match.group("secret").startswith("[REDACTED:") or (check is not None and not check(match.group("secret"))):
        return whole
    return whole[: start - offset] + marker + whole[end - offset:]


def passwords_in(text: str) -> list[str]:
    """The passwords written into `text` (URL userinfo, password= parameters), unquoted."""
    found = []
    for _kind, pattern, _hints in PASSWORD_RULES:
        found += [m.group("secret").strip("'") for m in pattern.finditer(text)]
    return [p for p in found if p]


def holds_secret_shape(text: str) -> bool:
    return bool(text) and redact_shapes(text) != text


def secret_stores(home: Path, env: Mapping[str, str]) -> tuple[Path, ...]:
    """Files and folders that hold credentials: never read by a tool or the library (resolved)."""
    user = Path(env.get("HOME") or Path.home()).expanduser()
    places = [home, user / ".pgpass", user / ".ssh", user / ".aws", user / ".netrc", user / ".git-credentials",
              user / ".config" / "gh", user / ".docker" / "config.json", user / ".gnupg"]
    if env.get("PGPASSFILE"):
        places.append(Path(env["PGPASSFILE"]).expanduser())
    return tuple(dict.fromkeys(p.resolve() for p in places))


def is_secret_name(name: str) -> bool:
    upper = name.upper()
    return any(hint in upper for hint in SECRET_NAME_HINTS)


def secret_environment_names(env: Mapping[str, str]) -> set[str]:
    """Names of the variables in `env` that hold a secret."""
    return {name for name, value in env.items() if is_secret_name(name) and len(value or "") >= MIN_SECRET_CHARS}


def variables_holding_secrets(env: Mapping[str, str]) -> set[str]:
    """Names of the variables that hold a secret by their name or by their value's shape (a URL with a
    password): what is blanked from the process's start-up environment and kept from commands."""
    return secret_environment_names(env) | {name for name, value in env.items() if holds_secret_shape(value)}


def environment_without_secrets(env: Mapping[str, str], keep: Iterable[str] = ()) -> dict[str, str]:
    """`env` without the variables whose names mark a secret (any length), nor those whose value holds
    one by its shape (a URL with a password), except those in `keep`.

    What commands astro starts (run_bash, hooks, the warm worker) get: a command the model wrote
    never sees a key.
    """
    kept = set(keep)
    return {name: value for name, value in env.items()
            if name in kept or not (is_secret_name(name) or holds_secret_shape(value))}


class Redactor:
    """Replaces every known secret value in text with `[REDACTED:NAME]`; thread-safe, cheap when idle."""

    def __init__(self, secrets: Mapping[str, str] | None = None) -> None:
        self._by_value: dict[str, str] = {}
        self._lock = threading.Lock()
        self._pattern: re.Pattern[str] | None = None
        for name, value in (secrets or {}).items():
            self.add(name, value)

    @classmethod
    def from_environment(cls, env: Mapping[str, str], stored: Mapping[str, str] | None = None) -> Redactor:
        """The secrets of `env` and `stored` (provider -> key, from the KeyStore: keystore.py is the
        one reader of keys.yaml, so this takes what it read rather than reading the file again)."""
        found = {name: env[name] for name in sorted(secret_environment_names(env))}
        for name, value in env.items():  # a password inside a URL is known by itself too, wherever it shows
            for number, password in enumerate(passwords_in(value or "")):
                found.setdefault(f"{name} password" + (f" {number + 1}" if number else ""), password)
        found.update({f"keys.yaml:{name}": value for name, value in (stored or {}).items() if isinstance(value, str)})
        return cls(found)

    def add(self, name: str, value: str) -> None:
        """Remember one more secret (a key typed in during the session, for example)."""
        if not isinstance(value, str) or len(value) < MIN_SECRET_CHARS:
            return
        with self._lock:
            self._by_value.setdefault(value, name)
            for form, how in encoded_forms(value):  # the key as `base64` or a URL would carry it
                self._by_value.setdefault(form, f"{name} ({how})")
            values = sorted(self._by_value, key=len, reverse=True)  # longest first: no partial leftovers
            self._pattern = re.compile("|".join(re.escape(v) for v in values))

    @property
    def names(self) -> list[str]:
        return sorted(set(self._by_value.values()))

    def redact(self, text: str) -> str:
        """Known values first (named by where they came from), then secrets by their shape."""
        if not text:
            return text
        pattern = self._pattern
        if pattern is not None:
            text = pattern.sub(lambda m: f"[REDACTED:{self._by_value[m.group(0)]}]", text)
        return redact_shapes(text)

    def redact_data(self, value: Any) -> Any:
        """The same for every string inside lists and dicts (messages, tool arguments, metadata).

        Returns `value` itself when it holds no secret, so callers keep their objects.
        """
        if isinstance(value, str):
            redacted = self.redact(value)
            return value if redacted == value else redacted
        if isinstance(value, dict):
            items = {key: self.redact_data(item) for key, item in value.items()}
            return value if all(items[key] is item for key, item in value.items()) else items
        if isinstance(value, (list, tuple)):
            parts = [self.redact_data(item) for item in value]
            return value if all(a is b for a, b in zip(parts, value)) else type(value)(parts)
        return value

    def contains_secret(self, text: str) -> bool:
        """Does `text` hold a known value (secrets by shape are not counted)?"""
        pattern = self._pattern
        return bool(pattern is not None and text and pattern.search(text))
