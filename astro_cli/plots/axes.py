"""Which columns a plot uses when the model names none, and a table's path as the researcher reads it.

Shared by the tool (feature.py) and its options (options.py: a second table's axes default the same way).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from astro_cli.tools.base import ToolError

if TYPE_CHECKING:
    from astropy.table import Table

    from astro_cli.tools.context import ToolContext

# Where catalogues keep positions (by UCD first, then by the names services use).
_RA = ("ra", "ra_icrs", "raj2000", "_raj2000", "ra_obj", "_ra", "radeg", "_glon", "glon")
_DEC = ("dec", "de_icrs", "dej2000", "_dej2000", "dec_obj", "_de", "dedeg", "_glat", "glat")


def relative(ctx: ToolContext, path: Path) -> str:
    try:
        return path.relative_to(ctx.workspace_root.resolve()).as_posix()
    except ValueError:
        return str(path)


def _by_ucd(table: Table, ucd: str) -> str | None:
    for name in table.colnames:
        meta = getattr(table[name], "meta", None) or {}
        if str(meta.get("ucd", "")).lower().startswith(ucd):
            return str(name)
    return None


def _by_name(table: Table, names: tuple[str, ...]) -> str | None:
    lowered = {c.lower(): c for c in table.colnames}
    return next((lowered[n] for n in names if n in lowered), None)


def default_axes(kind: str, table: Table, x: str, y: str) -> tuple[str, str]:
    """x and y as given, else what the kind's usual columns are in this table; one sentence when neither."""
    if kind == "sky":
        x = x or _by_ucd(table, "pos.eq.ra;meta.main") or _by_name(table, _RA) or ""
        y = y or _by_ucd(table, "pos.eq.dec;meta.main") or _by_name(table, _DEC) or ""
        if not x or not y:
            raise ToolError("No RA/Dec columns were recognised; give 'x' (RA) and 'y' (Dec) in degrees.")
    elif kind == "cmd":
        if not x:
            if "bp_rp" in table.colnames:
                x = "bp_rp"
            elif {"phot_bp_mean_mag", "phot_rp_mean_mag"} <= set(table.colnames):
                x = "phot_bp_mean_mag - phot_rp_mean_mag"
        y = y or ("phot_g_mean_mag" if "phot_g_mean_mag" in table.colnames else "")
        if not x or not y:
            raise ToolError("A cmd plot needs 'x' (the colour, e.g. 'Jmag - Ksmag') and 'y' (the magnitude, e.g. "
                            "'Ksmag').")
    elif not x:
        raise ToolError(f"A {kind} plot needs 'x': a column name or an expression over columns.")
    elif kind == "scatter" and not y:
        raise ToolError("A scatter plot needs 'y' as well as 'x'.")
    return x, y
