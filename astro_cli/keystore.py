"""API keys kept by astro: `ASTRO_HOME/keys.yaml`, a YAML mapping from provider name to key string.

The file is created with mode 0600 and never widened; every write replaces it atomically. An
environment variable always wins over the file, so a key exported in the shell (or by a CI job)
is the one used. Keys are never printed (`astro keys list` shows a masked form at most), never
copied anywhere else and never put in an error message: the messages here name the provider,
the variable and the file, not the value.

Provider -> environment variable (the first one is the variable to set; others are read too):

    anthropic  ANTHROPIC_API_KEY        openrouter  OPENROUTER_API_KEY
    openai     OPENAI_API_KEY           mistral     MISTRAL_API_KEY
    gemini     GEMINI_API_KEY           deepseek    DEEPSEEK_API_KEY
    ads        ADS_API_TOKEN, ADS_DEV_KEY (NASA ADS)

Any other provider name uses `<NAME>_API_KEY`, litellm's convention (groq -> GROQ_API_KEY).
"""

from __future__ import annotations

import logging
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

KEYS_FILE = "keys.yaml"
FILE_MODE = 0o600
PROVIDER_ENV: dict[str, tuple[str, ...]] = {
    "anthropic": ("ANTHROPIC_API_KEY",),
    "openai": ("OPENAI_API_KEY",),
    "gemini": ("GEMINI_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "ads": ("ADS_API_TOKEN", "ADS_DEV_KEY"),
}
_PROVIDER_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")
# Model prefixes (litellm providers) whose requests need no key from astro: local servers, cloud
# accounts with their own credentials.
KEYLESS_PROVIDERS = frozenset({"ollama", "ollama_chat", "lm_studio", "vllm", "hosted_vllm", "llamafile",
                               "vertex_ai", "bedrock", "sagemaker"})


class KeyStoreError(Exception):
    """keys.yaml cannot be read or written; one sentence that never contains a key."""


def env_vars(provider: str) -> tuple[str, ...]:
    """The environment variables that hold `provider`'s key, the one to set first."""
    return PROVIDER_ENV.get(provider, (provider.upper().replace("-", "_") + "_API_KEY",))


def check_provider(name: str) -> str:
    provider = name.strip().lower()
    if not _PROVIDER_NAME.match(provider):
        raise KeyStoreError(
            f"'{name}' is not a provider name; use a lowercase name such as "
            f"{', '.join(sorted(PROVIDER_ENV))}."
        )
    if provider not in PROVIDER_ENV:  # any litellm provider may have a key; a near miss of a known one is a typo
        from astro_cli.suggest import close_names

        near = close_names(provider, PROVIDER_ENV, cutoff=0.75)
        if near:
            raise KeyStoreError(f"'{name}' is not a provider astro knows; did you mean '{near[0]}'? "
                                f"(`astro keys set {near[0]}`)")
    return provider


def provider_of(model: str) -> str | None:
    """The provider whose key a litellm model string needs (None for local servers and unknown names)."""
    lowered = model.strip().lower()
    if "/" in lowered:
        prefix = lowered.split("/", 1)[0]
        return None if prefix in KEYLESS_PROVIDERS else prefix
    if lowered.startswith("claude"):
        return "anthropic"
    if lowered.startswith(("gpt-", "o1", "o3", "o4", "chatgpt")):
        return "openai"
    if lowered.startswith("gemini"):
        return "gemini"
    return None


def mask(key: str) -> str:
    """Enough to tell two keys apart, never enough to use one: `sk-…a9f3`."""
    key = key.strip()
    if len(key) < 16:
        return "…"
    return f"{key[:3]}…{key[-4:]}"


@dataclass(frozen=True)
class Credential:
    """Where a provider's key comes from: `source` is a variable name or the store, `value` the key."""

    provider: str
    value: str
    source: str  # "env OPENAI_API_KEY" | "keys.yaml"
    variable: str  # the variable that would win over the store

    @property
    def from_store(self) -> bool:
        return self.source == KEYS_FILE


class KeyStore:
    """The keys.yaml of one ASTRO_HOME.

    The parsed file is kept and parsed again only when the file changes on disk (its modification
    time, size or inode: `astro keys set` replaces the file, an editor may rewrite it in place), so a
    key asked for at every model request costs one `stat`, and a key set in another terminal is used
    from the next request on. `parses` counts the parses (the tests read it).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.parses = 0
        self._seen: tuple[int, int, int] | None = None  # (mtime_ns, size, inode) of the parsed file
        self._keys: dict[str, str] = {}
        self._loose: dict[str, str] = {}  # every text entry of the last parse, even of a file refused

    @classmethod
    def at(cls, home_root: Path) -> KeyStore:
        return cls(home_root / KEYS_FILE)

    def load(self) -> dict[str, str]:
        """provider -> key; an absent file is empty. A broken file is a KeyStoreError naming it
        (each time it is asked for, until the file is fixed)."""
        try:
            info = self.path.stat()
        except FileNotFoundError:
            self._seen, self._keys = None, {}
            return {}
        except OSError as exc:
            raise KeyStoreError(f"{self.path} cannot be read ({exc.strerror}).") from None
        seen = (info.st_mtime_ns, info.st_size, info.st_ino)
        if seen != self._seen:
            self._seen = None  # a file that fails to parse is parsed (and reported) again next time
            self._keys = self._parse()
            self._seen = seen
        return dict(self._keys)

    def _parse(self) -> dict[str, str]:
        import yaml

        from astro_cli.safe_yaml import load_yaml

        self.parses += 1
        log.debug("keys.yaml read: %s (parse %d of this store)", self.path, self.parses)
        self._loose = {}
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise KeyStoreError(f"{self.path} cannot be read ({exc.strerror}).") from None
        try:
            data = load_yaml(text)
        except yaml.YAMLError:
            raise KeyStoreError(f"{self.path} is not valid YAML; fix it or remove it and set the keys again.") from None
        if data is None:
            return {}
        if isinstance(data, dict):
            self._loose = {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}
        if not isinstance(data, dict):
            raise KeyStoreError(f"{self.path} should map provider names to keys (provider: key).")
        keys: dict[str, str] = {}
        for provider, value in data.items():
            if not isinstance(provider, str) or not isinstance(value, str):
                raise KeyStoreError(f"{self.path}: each entry should be 'provider: key' with the key as text.")
            keys[provider] = value.strip()
        return keys

    def secrets(self) -> dict[str, str]:
        """provider -> key for the redactor: every key the file holds, even when it is refused as a
        whole (a bad entry beside good ones); an unreadable file holds none that astro could use."""
        try:
            return self.load()
        except KeyStoreError:
            return dict(self._loose)

    def too_open(self) -> bool:
        """Readable or writable by others than the owner (someone widened it by hand)."""
        try:
            mode = self.path.stat().st_mode
        except OSError:
            return False
        return bool(mode & (stat.S_IRWXG | stat.S_IRWXO))

    def get(self, provider: str) -> str | None:
        return self.load().get(provider) or None

    def set(self, provider: str, key: str) -> None:
        provider = check_provider(provider)
        key = key.strip()
        if not key:
            raise KeyStoreError("The key is empty; nothing was saved.")
        if any(ch.isspace() for ch in key):
            raise KeyStoreError("A key has no spaces or line breaks; nothing was saved.")
        keys = self.load()
        keys[provider] = key
        self._write(keys)

    def remove(self, provider: str) -> bool:
        keys = self.load()
        if provider not in keys:
            return False
        del keys[provider]
        self._write(keys)
        return True

    def _write(self, keys: dict[str, str]) -> None:
        """Write keys.yaml through the one writer (a 0600 temporary file renamed over it); an existing file's
        narrower mode (0400, say) is kept, a wider one is narrowed to 0600."""
        import yaml

        mode = FILE_MODE
        try:
            mode &= stat.S_IMODE(self.path.stat().st_mode) | stat.S_IRUSR
        except FileNotFoundError:
            pass
        from astro_cli.security.writer import Place, open_binary

        text = yaml.safe_dump(dict(sorted(keys.items())), default_flow_style=False) if keys else ""
        try:
            with open_binary(Place.beside(self.path), mode=mode) as handle:  # created 0600, then `mode`
                handle.write(text.encode("utf-8"))
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            raise KeyStoreError(f"{self.path} cannot be written ({exc.strerror}).") from None


def credential(provider: str, env: Mapping[str, str], store: KeyStore | None) -> Credential | None:
    """The key for `provider`: its environment variable first, then keys.yaml."""
    names = env_vars(provider)
    for name in names:
        value = (env.get(name) or "").strip()
        if value:
            return Credential(provider, value, f"env {name}", names[0])
    if store is not None:
        stored = store.get(provider)
        if stored:
            return Credential(provider, stored, KEYS_FILE, names[0])
    return None


def key_hint(model: str) -> str:
    """The variable a person sets for `model`'s key, for messages."""
    provider = provider_of(model)
    return env_vars(provider)[0] if provider else "ASTRO_API_KEY"
