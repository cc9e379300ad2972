"""What a plot draws beside its main points: error bars and a second table overplotted.

Both are optional parts of a PlotRequest (plots/draw.py draws the main points and calls these).
An error bar is drawn only where the error is a number of zero or more; a plotted point whose
error is masked, not finite or negative keeps its marker and is counted in the note. A second
table is drawn in another colour and marker on the same axes, and a legend names both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from astro_cli.plots.columns import Quantity, describe_masked

if TYPE_CHECKING:
    import numpy as np
    from matplotlib.axes import Axes

OVERLAY_COLOUR = "tab:orange"
OVERLAY_MARKER = "^"
ERROR_COLOUR = "0.45"


@dataclass
class ErrorBar:
    """One axis's errors, already in that axis's unit: `lower` alone is symmetric; with `upper`,
    `lower` is the size below the value and `upper` the size above."""

    text: str
    lower: Quantity
    upper: Quantity | None = None

    @property
    def quantities(self) -> list[Quantity]:
        return [self.lower] + ([self.upper] if self.upper is not None else [])


@dataclass
class Overlay:
    """A second table's quantities, drawn on the same axes (x and y in the main axes' units)."""

    x: Quantity
    y: Quantity | None
    label: str
    source: str
    rows: int = 0
    plotted: int = 0
    converted: list[str] = field(default_factory=list)  # e.g. "y from arcsec to mas"


def error_sizes(bar: ErrorBar, rows: int, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sizes as matplotlib takes them: shape (n,) or (2, n), over the kept rows; where each is usable)."""
    import numpy as np

    arrays = [np.broadcast_to(q.values, (rows,))[keep] for q in bar.quantities]
    usable = np.ones(int(keep.sum()), dtype=bool)
    for array in arrays:
        with np.errstate(invalid="ignore"):
            usable &= np.isfinite(array) & (array >= 0)
    sizes = np.vstack(arrays) if len(arrays) == 2 else arrays[0]
    return sizes, usable


def draw_error_bars(axes: Axes, xs: np.ndarray, ys: np.ndarray, keep: np.ndarray, rows: int,
                    xerr: ErrorBar | None, yerr: ErrorBar | None) -> tuple[list[str], dict[str, int]]:
    """Error bars under the points (x and y separately, so a row missing one still gets the other);
    the notes the model reads and how many bars each axis got."""
    notes: list[str] = []
    counts: dict[str, int] = {}
    for axis, bar in (("x", xerr), ("y", yerr)):
        if bar is None:
            continue
        sizes, usable = error_sizes(bar, rows, keep)
        chosen = sizes[..., usable]
        if usable.any():
            axes.errorbar(xs[usable], ys[usable], xerr=chosen if axis == "x" else None,
                          yerr=chosen if axis == "y" else None, fmt="none", ecolor=ERROR_COLOUR, elinewidth=0.7,
                          capsize=0, zorder=1)
        counts[axis] = int(usable.sum())
        kind = "asymmetric" if bar.upper is not None else "symmetric"
        note = f"error bars on {axis} ({kind}) from '{bar.text}' on {int(usable.sum()):,} of {usable.size:,} points"
        missing = usable.size - int(usable.sum())
        if missing:
            masked = describe_masked(bar.quantities)
            note += (f"; {missing:,} drawn without one (an error masked, not finite or negative"
                     f"{': ' + masked + ' in the table' if masked else ''})")
        notes.append(note)
    return notes, counts


def draw_overlay(axes: Axes, overlay: Overlay, xs: np.ndarray, ys: np.ndarray, rows: int, limit: int) -> str:
    """The second table's points (a random `limit` of them past that many); the note the model reads."""
    import numpy as np

    usable = int(xs.size)
    if usable > limit:
        pick = np.random.default_rng(0).choice(usable, size=limit, replace=False)
        xs, ys = xs[pick], ys[pick]
    crowded = xs.size > 2_000
    axes.scatter(xs, ys, s=6 if crowded else 22, marker=OVERLAY_MARKER, c=OVERLAY_COLOUR, linewidths=0,
                 alpha=0.7 if crowded else 0.9, zorder=3, label=overlay.label)
    overlay.rows, overlay.plotted = rows, int(xs.size)
    return overlay_note(overlay, usable)


def overlay_note(overlay: Overlay, usable: int) -> str:
    note = f"overplotted '{overlay.label}' from {overlay.source}: {overlay.plotted:,} of {overlay.rows:,} rows"
    if overlay.converted:
        note += f" ({', '.join(overlay.converted)})"
    if overlay.plotted < usable:
        note += f" (a random sample of its {usable:,} usable rows)"
    skipped = overlay.rows - usable
    if skipped:
        masked = describe_masked([q for q in (overlay.x, overlay.y) if q is not None])
        note += f"; {skipped:,} skipped (a value masked or not finite{': ' + masked if masked else ''})"
    return note
