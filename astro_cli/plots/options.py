"""The plot options the model may set beyond the table and kind: error columns and a second table.

Each value is checked here and refused in one sentence before anything is drawn. A quantity drawn
against an axis (an error, the second table's x or y) is converted to that axis's unit when both
have units (`ra_error` in mas against `ra` in deg), and refused when the units do not convert.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from astro_cli.plots.columns import Quantity, quantity
from astro_cli.plots.layers import ErrorBar, Overlay
from astro_cli.tools.base import ToolError
from astro_cli.tools.table_read import read_table

if TYPE_CHECKING:
    from astropy.table import Table

    from astro_cli.tools.context import ToolContext


def in_unit(value: Quantity, unit: str | None, what: str) -> Quantity:
    """`value` in `unit` (unchanged when either has no unit); one sentence when they do not convert."""
    if not unit or not value.unit or value.unit == unit:
        return value
    from astropy import units

    try:
        scale = float(units.Unit(value.unit).to(units.Unit(unit)))
    except (ValueError, TypeError, units.UnitsError):
        raise ToolError(f"{what} is in {value.unit}, which does not convert to the axis's {unit}.") from None
    return Quantity(value.values * scale, value.label, unit, value.masked)


def error_bar(table: Table, text: str, axis: Quantity | None, name: str, kind: str) -> ErrorBar | None:
    """`xerr`/`yerr`: one quantity (symmetric) or `lower,upper` (the sizes below and above the value)."""
    text = text.strip()
    if not text:
        return None
    if kind not in ("scatter", "cmd") or axis is None:
        raise ToolError(f"'{name}' draws error bars on scatter and cmd plots only, not on a {kind} plot.")
    parts = [part.strip() for part in text.split(",")]
    if len(parts) > 2 or not all(parts):
        raise ToolError(f"'{name}' is one error column or expression, or two separated by a comma "
                        "(the size below, then above, the value).")
    sizes = [in_unit(quantity(table, part), axis.unit, f"'{name}' ({part})") for part in parts]
    return ErrorBar(text, sizes[0], sizes[1] if len(sizes) == 2 else None)


def overlay(ctx: ToolContext, spec: Any, kind: str, axes: tuple[Quantity, Quantity | None],
            texts: tuple[str, str]) -> Overlay | None:
    """`overplot`: a second workspace table drawn on the same axes; its x and y default to the first
    table's (for a sky plot, to its own RA and Dec), its legend label to its file name."""
    from astro_cli.plots.axes import default_axes, relative

    if spec is None:
        return None
    if not isinstance(spec, dict) or not str(spec.get("table") or "").strip():
        raise ToolError("'overplot' needs 'table': the path of a second table in the workspace.")
    path = ctx.resolve_path(str(spec["table"]).strip(), must_exist=True)
    if path.is_dir():
        raise ToolError(f"'{spec['table']}' is a folder; give the table file inside it.")
    source = relative(ctx, path)
    table = read_table(path, source)
    ctx.touched(path)
    given = [str(spec.get(key) or "").strip() for key in ("x", "y")]
    inherited = ("", "") if kind == "sky" else texts
    x_text, y_text = default_axes(kind, table, given[0] or inherited[0], given[1] or inherited[1])
    converted: list[str] = []
    x = _on_axis(quantity(table, x_text), axes[0], "x", converted)
    y = None
    if y_text and kind != "histogram" and axes[1] is not None:
        y = _on_axis(quantity(table, y_text), axes[1], "y", converted)
    label = str(spec.get("label") or "").strip() or path.name
    from astro_cli.plots.draw import plain

    return Overlay(x, y, plain(label), source, converted=converted)


def _on_axis(value: Quantity, axis: Quantity, name: str, converted: list[str]) -> Quantity:
    """The second table's quantity in the axis's unit; `converted` says when a conversion was made."""
    result = in_unit(value, axis.unit, f"The overplotted {name} ({value.label})")
    if result.unit != value.unit and value.unit:
        converted.append(f"{name} converted from {value.unit} to {result.unit}")
    return result
