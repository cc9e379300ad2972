"""ASTRO_DEBUG=1: astro's loggers write to ASTRO_HOME/logs/astro.log.

Deliberately minimal (one file handler on the `astro_cli` logger, nothing global) so that the
logging work of issue 16 (`--debug`, rotation, redaction of every record) can take it over.
What is logged today never holds a secret: reasons, counts and process ids, never environments.
"""

from __future__ import annotations

from collections.abc import Mapping

ON = frozenset({"1", "true", "yes", "on"})


def enable_from_environment(env: Mapping[str, str]) -> None:
    if (env.get("ASTRO_DEBUG") or "").strip().lower() not in ON:
        return
    import logging

    logger = logging.getLogger("astro_cli")
    if any(getattr(handler, "_astro_debug", False) for handler in logger.handlers):
        return
    from astro_cli.workspace import AstroHome

    folder = AstroHome.default(dict(env)).root / "logs"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(folder / "astro.log", encoding="utf-8")
    except OSError:
        return
    handler._astro_debug = True  # type: ignore[attr-defined]
    handler.setFormatter(logging.Formatter("%(asctime)s pid %(process)d %(name)s %(levelname)s %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
