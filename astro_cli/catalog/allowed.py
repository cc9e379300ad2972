"""TAP URLs the researcher allowed: a URL in place of a service name, used after one yes.

ADQL (and the researcher's targets in it) goes only where the researcher said it may. A URL given
instead of a service name is sent nothing until the researcher allows it once: the tool's
permission question at the REPL (never pre-approved: agent/permissions.py), the command's
--allow-url, or `astro catalog allow URL`. Allowed URLs are kept in the user's own config,
`catalog.allowed_urls`, written by astro and never by the model (its file tools cannot reach
ASTRO_HOME); a project's list applies only once the folder is trusted (security/trust.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from astro_cli.catalog.errors import CatalogError

if TYPE_CHECKING:
    from astro_cli.app import AppContext
    from astro_cli.config import Settings

KEY = "catalog.allowed_urls"


def is_url(name: str) -> bool:
    """Is this service argument a URL (any scheme) rather than a service's name?"""
    return "://" in str(name or "")


def normalised(url: str) -> str:
    """The URL as astro compares and stores it: scheme and host lower case, no trailing slash,
    no query or fragment. Only http(s) with a host; one sentence otherwise."""
    text = " ".join(str(url or "").split())
    parts = urlsplit(text)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname or " " in text:
        raise CatalogError(f"'{text[:200]}' is not a TAP URL astro can use: give an http:// or https:// address "
                           "with a host, e.g. https://example.org/tap.")
    if parts.query or parts.fragment:
        raise CatalogError(f"'{text[:200]}' has a query or fragment; give the TAP service's base URL "
                           "(the address before /sync).")
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path.rstrip("/"), "", ""))


def allowed_urls(settings: Settings) -> list[str]:
    """The allowed TAP URLs (the user's, and a trusted project's), normalised; unusable entries skipped."""
    found: list[str] = []
    for entry in settings.typed["catalog.allowed_urls"] or []:
        try:
            url = normalised(str(entry))
        except CatalogError:
            continue  # `astro config show` names the bad entry; it allows nothing
        if url not in found:
            found.append(url)
    return found


def is_allowed(settings: Settings, url: str) -> bool:
    try:
        return normalised(url) in allowed_urls(settings)
    except CatalogError:
        return False


def not_yet_allowed(settings: Settings, name: str) -> str | None:
    """For a service argument that is a URL not allowed yet: what the call would do, as the middle of
    a sentence (the permission check says it is never pre-approved); None otherwise."""
    if not is_url(name) or is_allowed(settings, name):
        return None
    return f"would send a query to {' '.join(str(name).split())[:200]}, a TAP URL the researcher has not allowed"


def allow(app: AppContext, url: str) -> bool:
    """Remember `url` in the user's own config; False when it was allowed already."""
    from astro_cli.config import ConfigError, read_flat
    from astro_cli.user_config import set_values

    wanted = normalised(url)
    path = app.home.config_path
    try:
        current = read_flat(path).get(KEY) if path.exists() else None
    except ConfigError as exc:
        raise CatalogError(str(exc)) from None
    mine = [str(u) for u in current] if isinstance(current, list) else []
    if wanted in allowed_urls(app.settings) and wanted in mine:
        return False
    try:
        set_values(path, {KEY: [*mine, wanted] if wanted not in mine else mine})
    except ConfigError as exc:
        raise CatalogError(str(exc)) from None
    app.settings.set(KEY, [*allowed_urls(app.settings), wanted], str(path))
    return True
