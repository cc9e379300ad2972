"""Drawing the four plots with matplotlib's object API and the Agg canvas (no pyplot, no global backend).

Importing matplotlib costs ~0.3 s, so nothing here is imported until a plot is drawn. Labels and
titles may come from an attacker's table: `$` is escaped so mathtext never parses them, and they
are cut to a readable length. Past `max_points` rows a scatter or colour-magnitude diagram becomes
a density map (hexagonal bins, log counts) and a sky plot a random sample; the result says which. Error bars and a second table are drawn by plots/layers.py.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from astro_cli.plots.columns import Quantity
from astro_cli.plots.layers import (
    OVERLAY_COLOUR,
    ErrorBar,
    Overlay,
    draw_error_bars,
    draw_overlay,
    overlay_note,
)
from astro_cli.tools.base import ToolError

if TYPE_CHECKING:
    import numpy as np
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

KINDS = ("scatter", "histogram", "cmd", "sky")
KIND_TITLES = {"scatter": "Scatter plot", "histogram": "Histogram", "cmd": "Colour-magnitude diagram",
               "sky": "Sky positions"}
FIGSIZE = (7.0, 5.0)  # inches
DPI = 150  # 1050 x 750 pixels
MAX_BINS = 200
LABEL_CHARS = 100


@dataclass
class PlotRequest:
    kind: str
    x: Quantity
    y: Quantity | None = None
    title: str = ""
    bins: int | None = None
    projection: str = "auto"  # sky: auto | aitoff | plain
    max_points: int = 20_000
    xlabel: str = ""  # empty: the quantity with its unit
    ylabel: str = ""
    label: str = ""  # the main points' name in the legend (shown when a second table is overplotted)
    xerr: ErrorBar | None = None
    yerr: ErrorBar | None = None
    overlay: Overlay | None = None

    def axis_labels(self, x: Quantity, y: Quantity | None, y_default: str = "") -> tuple[str, str]:
        """The labels drawn: the researcher's, else the quantity and its unit."""
        return (plain(self.xlabel or x.axis_label),
                plain(self.ylabel or (y.axis_label if y is not None else y_default)))


@dataclass
class Drawing:
    """The drawn figure (tests read its Axes) and what the model is told about it."""

    figure: Figure
    axes: Axes
    rows: int
    plotted: int
    mode: str  # points | density | sample | histogram
    notes: list[str] = field(default_factory=list)
    usable: int = 0  # rows with every value finite (more than `plotted` when a sample is drawn)
    error_bars: dict[str, int] = field(default_factory=dict)  # axis -> points with an error bar
    overplotted: int = 0

    @property
    def skipped(self) -> int:
        """Rows left out because a value was masked or not finite (a sample's unpicked rows are not counted)."""
        return self.rows - (self.usable if self.mode == "sample" else self.plotted)

    def metadata(self) -> dict[str, Any]:
        """What the PNG's Description records (tests and scripts read it back)."""
        return {
            "kind": self.figure.get_label(), "x": self.axes.get_xlabel(), "y": self.axes.get_ylabel(),
            "x_inverted": bool(self.axes.xaxis_inverted()), "y_inverted": bool(self.axes.yaxis_inverted()),
            "rows": self.rows, "plotted": self.plotted, "skipped": self.skipped, "mode": self.mode,
            "error_bars": self.error_bars, "overplotted": self.overplotted,
            "legend": [text.get_text() for text in legend.get_texts()] if (legend := self.axes.get_legend()) else [],
        }


def plain(text: str, limit: int = LABEL_CHARS) -> str:
    """Text matplotlib draws as written: `$` escaped (no mathtext), control characters dropped, cut."""
    cleaned = "".join(ch if ch.isprintable() else " " for ch in text)
    cleaned = cleaned if len(cleaned) <= limit else cleaned[: limit - 1] + "…"
    return cleaned.replace("$", r"\$")


def draw(request: PlotRequest) -> Drawing:
    from matplotlib.figure import Figure

    if request.kind not in KINDS:
        raise ToolError(f"Unknown plot kind '{request.kind}'; choose one of {', '.join(KINDS)}.")
    figure = Figure(figsize=FIGSIZE, dpi=DPI, layout="constrained")
    figure.set_label(request.kind)
    if request.kind == "histogram":
        drawing = _histogram(figure, request)
    elif request.kind == "sky":
        drawing = _sky(figure, request)
    else:
        drawing = _points(figure, request)
    # An Aitoff's title sits above its +75° label.
    drawing.axes.set_title(plain(request.title or KIND_TITLES[request.kind], 120),
                           pad=24 if drawing.axes.name == "aitoff" else 6)
    if request.overlay is not None:
        drawing.overplotted = request.overlay.plotted
        drawing.axes.legend(loc="best", fontsize=8, framealpha=0.8)
    return drawing


def png_bytes(drawing: Drawing, title: str, source: str) -> bytes:
    buffer = io.BytesIO()
    metadata = {"Title": plain(title, 200), "Software": "astro plot_table", "Source": source[:300],
                "Description": json.dumps(drawing.metadata(), ensure_ascii=False)}
    try:
        drawing.figure.savefig(buffer, format="png", dpi=DPI, metadata=metadata)
    except ValueError as exc:  # a label matplotlib cannot lay out
        raise ToolError(f"matplotlib could not draw the figure: {str(exc).splitlines()[0][:200]}.") from None
    return buffer.getvalue()


def _finite(*arrays: np.ndarray) -> np.ndarray:
    import numpy as np

    keep = np.ones(arrays[0].shape, dtype=bool)
    for array in arrays:
        keep &= np.isfinite(array)
    return keep


def _rows(*quantities: Quantity) -> int:
    return max(q.values.size for q in quantities)


def _need_y(request: PlotRequest, y: Quantity | None = None) -> Quantity:
    """The y quantity (the request's, or a second table's when given) that this kind needs."""
    chosen = y if y is not None else request.y
    if chosen is None:
        raise ToolError(f"A {request.kind} plot needs 'y' as well as 'x'.")
    return chosen


def _points(figure: Figure, request: PlotRequest) -> Drawing:
    import numpy as np

    y = _need_y(request)
    x_values, y_values = np.broadcast_arrays(request.x.values, y.values)
    keep = _finite(x_values, y_values)
    xs, ys = x_values[keep], y_values[keep]
    axes = figure.add_subplot()
    notes: list[str] = []
    if xs.size > request.max_points:
        image = axes.hexbin(xs, ys, gridsize=150, bins="log", mincnt=1, cmap="viridis", linewidths=0,
                            label=plain(request.label or "table"))
        figure.colorbar(image, ax=axes, label="stars per bin" if request.kind == "cmd" else "rows per bin")
        mode = "density"
        notes.append(f"drawn as a density map (hexagonal bins, log counts): more than {request.max_points:,} points")
        if request.xerr is not None or request.yerr is not None:
            notes.append("error bars are not drawn on a density map")
    else:
        size = 12 if xs.size <= 2_000 else 3
        axes.scatter(xs, ys, s=size, c="black" if request.kind == "cmd" else "tab:blue", linewidths=0,
                     alpha=0.8 if xs.size > 2_000 else 1.0, zorder=2, label=plain(request.label or "table"))
        mode = "points"
    error_notes, counts = draw_error_bars(axes, xs, ys, keep, keep.size, request.xerr, request.yerr) \
        if mode == "points" else ([], {})
    notes += error_notes
    if request.overlay is not None:
        overlay = request.overlay
        ox, oy = np.broadcast_arrays(overlay.x.values, _need_y(request, overlay.y).values)
        shown = _finite(ox, oy)
        notes.append(draw_overlay(axes, overlay, ox[shown], oy[shown], ox.size, request.max_points))
    xlabel, ylabel = request.axis_labels(request.x, y)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.grid(True, alpha=0.3)
    if request.kind == "cmd":
        axes.invert_yaxis()  # magnitudes: bright at the top
        notes.append("magnitude axis inverted (bright at the top)")
    drawing = Drawing(figure, axes, _rows(request.x, y), int(xs.size), mode, notes)
    drawing.error_bars = counts
    return drawing


def _histogram(figure: Figure, request: PlotRequest) -> Drawing:
    import numpy as np

    values = np.broadcast_to(request.x.values, (_rows(request.x),))
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        raise ToolError(f"'{request.x.label}' has no finite value to count.")
    if request.bins is not None:
        bins: Any = request.bins
    else:
        edges = np.histogram_bin_edges(finite, bins="auto")
        bins = edges if len(edges) - 1 <= MAX_BINS else MAX_BINS
    axes = figure.add_subplot()
    counts, edges, _ = axes.hist(finite, bins=bins, color="tab:blue", edgecolor="white", linewidth=0.3,
                                 label=plain(request.label or "table"))
    notes = [f"{len(counts)} bins of width {edges[1] - edges[0]:.4g}"]
    if request.overlay is not None:  # the same bins, as an outline over the bars
        overlay = request.overlay
        other = np.broadcast_to(overlay.x.values, (_rows(overlay.x),))
        shown = other[np.isfinite(other)]
        axes.hist(shown, bins=[float(edge) for edge in edges], histtype="step", color=OVERLAY_COLOUR, linewidth=1.5, label=overlay.label)
        overlay.rows, overlay.plotted = other.size, int(shown.size)
        notes.append(overlay_note(overlay, int(shown.size)) + " (its values outside the bins are not counted)")
    xlabel, ylabel = request.axis_labels(request.x, None, "rows per bin")
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.grid(True, alpha=0.3)
    return Drawing(figure, axes, values.size, int(finite.size), "histogram", notes)


def _degrees(quantity: Quantity, what: str) -> np.ndarray:
    """The values in degrees (a column in rad or hourangle is converted); refused for other units."""
    if not quantity.unit or quantity.unit in ("deg", "degrees", "degree"):
        return quantity.values
    from astropy import units

    try:
        degrees: np.ndarray = quantity.values * units.Unit(quantity.unit).to(units.deg)
        return degrees
    except (ValueError, TypeError, units.UnitsError):
        raise ToolError(f"'{quantity.label}' is in {quantity.unit}, not an angle; give the {what} column.") from None


def _sky(figure: Figure, request: PlotRequest) -> Drawing:
    import numpy as np

    y = _need_y(request)
    lon, lat = np.broadcast_arrays(_degrees(request.x, "longitude (RA)"), _degrees(y, "latitude (Dec)"))
    keep = _finite(lon, lat)
    lon, lat = lon[keep] % 360.0, lat[keep]
    if lat.size and (lat.min() < -90.0 or lat.max() > 90.0):
        raise ToolError(f"'{y.label}' has values beyond ±90°, so it is not a latitude (Dec); give the Dec column.")
    usable = int(lon.size)
    notes: list[str] = []
    mode = "points"
    if usable > request.max_points:
        pick = np.random.default_rng(0).choice(usable, size=request.max_points, replace=False)
        lon, lat = lon[pick], lat[pick]
        mode = "sample"
        notes.append(f"a random {request.max_points:,} of the {usable:,} positions are drawn")
    centre = _circular_mean(lon) if lon.size else 0.0
    around = (lon - centre + 180.0) % 360.0 - 180.0  # longitudes as offsets from the field's centre
    wide = lon.size and (np.ptp(around) > 90.0 or np.ptp(lat) > 60.0)
    projection = request.projection if request.projection != "auto" else ("aitoff" if wide else "plain")
    if projection == "aitoff":
        axes = figure.add_subplot(projection="aitoff")
        shown = (lon + 180.0) % 360.0 - 180.0
        crowded = lon.size > 2_000
        axes.scatter(np.radians(-shown), np.radians(lat), s=1.5 if crowded else 10, alpha=0.5 if crowded else 1.0,
                     c="tab:blue", linewidths=0, zorder=1, label=plain(request.label or "table"))
        axes.set_axisbelow(False)  # the grid and its RA labels above the points
        ticks = np.arange(-150, 151, 30)
        axes.set_xticks(np.radians(ticks))
        axes.set_xticklabels([f"{(-t) % 360:.0f}°" for t in ticks], fontsize=7)
        notes.append("Aitoff projection, longitude increasing to the left")
    else:
        axes = figure.add_subplot()
        axes.scatter(around + centre, lat, s=10 if lon.size <= 2_000 else 3, c="tab:blue", linewidths=0,
                     label=plain(request.label or "table"))
        axes.invert_xaxis()  # east to the left, as on the sky
        mean_lat = float(np.radians(np.nanmean(lat))) if lat.size else 0.0
        axes.set_aspect(1.0 / max(np.cos(mean_lat), 0.05), adjustable="datalim")
        notes.append("longitude axis inverted (east to the left), aspect corrected for cos(latitude)")
    if request.overlay is not None:
        overlay = request.overlay
        olon, olat = np.broadcast_arrays(_degrees(overlay.x, "longitude (RA)"),
                                         _degrees(_need_y(request, overlay.y), "latitude (Dec)"))
        shown_rows = _finite(olon, olat)
        olon, olat = olon[shown_rows] % 360.0, olat[shown_rows]
        ox = np.radians(-((olon + 180.0) % 360.0 - 180.0)) if projection == "aitoff" \
            else (olon - centre + 180.0) % 360.0 - 180.0 + centre
        oy = np.radians(olat) if projection == "aitoff" else olat
        notes.append(draw_overlay(axes, overlay, ox, oy, shown_rows.size, request.max_points))
    xlabel, ylabel = request.axis_labels(request.x, y)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.grid(True, alpha=0.3)
    drawing = Drawing(figure, axes, _rows(request.x, y), int(lon.size), mode, notes)
    drawing.usable = usable
    return drawing


def _circular_mean(lon: np.ndarray) -> float:
    import numpy as np

    radians = np.radians(lon)
    return float(np.degrees(np.arctan2(np.sin(radians).mean(), np.cos(radians).mean())) % 360.0)
