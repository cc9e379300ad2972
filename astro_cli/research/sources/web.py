"""What the paper sources (arXiv, NASA ADS, Crossref, SIMBAD) need to reach a service, and nothing more.

A source is handed a `Web`: the settings it reads (service URLs, `http.timeout`, `http.contact`),
astro's home (the arXiv clock another process shares), the app's KeyStore (the ADS token) and the per-process objects of the
sources (the arXiv throttle, SIMBAD's client), kept with the app's services so there is one of each.
The app is read once, in `Web.of`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from astro_cli.app import AppContext
    from astro_cli.by_kind import ByKind
    from astro_cli.config import Settings
    from astro_cli.keystore import KeyStore
    from astro_cli.workspace import AstroHome

T = TypeVar("T")


class Web:
    """The settings, home and per-process objects the sources share (one per app: `Web.of(app)`)."""

    def __init__(self, settings: Settings, home: AstroHome, services: ByKind, keys: KeyStore) -> None:
        self.settings = settings
        self.home = home
        self.keys = keys  # the app's one reader of keys.yaml (the ADS token)
        self._services = services

    @staticmethod
    def of(app: AppContext) -> Web:
        return app.service(Web, lambda: Web(app.settings, app.home, app.services, app.keys))

    def service(self, kind: type[T], factory: Callable[[], T] | None = None) -> T:
        """The process's one `kind` object (the arXiv throttle, say), made by `factory` on first use."""
        return self._services.get(kind, factory)
