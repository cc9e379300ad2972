"""The plot_table tool: a workspace table drawn as a PNG in figures/, and the Figures transcript section.

It reads any table astropy reads (the ECSV, FITS or CSV files query_catalog writes to data/, a
VOTable someone saved) from inside the workspace, draws it (plots/draw.py), writes the PNG through
the confinement (figures/ only, links refused), emits FigureSaved for the renderers, and tells the
model the path, what was drawn and how many rows were plotted or skipped. Writing needs permission,
as file_write does.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from astro_cli.plots.axes import default_axes, relative
from astro_cli.tools.base import ToolError, ToolResult
from astro_cli.tools.context import ToolContext
from astro_cli.tools.typed import as_tool, tool
from astro_cli.tools.written import SessionWrites
from astro_cli.transcript_sections import TranscriptSection, transcript_sections

if TYPE_CHECKING:

    from astro_cli.app import AppContext
    from astro_cli.plots.columns import Quantity
    from astro_cli.plots.draw import Drawing, PlotRequest

FIGURES = "figures"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


class _OverlayTable(TypedDict):
    table: str


class Overlay(_OverlayTable, total=False):
    """What `overplot` takes (plots/options.py): a second table, its columns and its legend label."""

    x: str
    y: str
    label: str


DESCRIPTION = (
    "Plot a table of the workspace (ECSV, CSV, FITS, VOTable) as a PNG in figures/. Kinds: scatter (x, y), "
    "histogram (x), cmd (colour-magnitude diagram, magnitude axis inverted: x the colour, y the magnitude; "
    "default Gaia's bp_rp and phot_g_mean_mag), sky (x RA, y Dec in degrees; found when omitted). x and y "
    "are columns or arithmetic over them, e.g. 'phot_bp_mean_mag - phot_rp_mean_mag' or "
    "'phot_g_mean_mag + 5*log10(parallax/100)'. Masked rows are skipped and counted; large tables become "
    "density maps. xlabel/ylabel: axis labels (default: quantity [unit]). xerr/yerr (scatter, cmd): error column "
    "or expression, 'lower,upper' if asymmetric. overplot: a second table on the same axes with a legend; its x, y "
    "default to the first's. Needs the user's permission."
)


def figure_name(ctx: ToolContext, output: str, default_stem: str) -> str:
    """`figures/NAME.png`: the model's name (a plain file name), else a free one made from the table and kind.
    The model's name taken by a file this session did not draw: a free one beside it (tools/written.py)."""
    if output:
        name = output.strip().removeprefix("./").removeprefix(FIGURES + "/")
        if not _NAME.match(name) or ".." in name:
            raise ToolError("'output' must be a plain file name such as 'cmd.png'; figures are always saved in "
                            "figures/.")
        if not name.lower().endswith(".png"):
            if "." in name and name.rsplit(".", 1)[1].lower() in ("pdf", "svg", "jpg", "jpeg", "eps"):
                raise ToolError("plot_table saves PNG files only; give 'output' ending in .png.")
            name += ".png"
        folder, writes = ctx.workspace_root / FIGURES, ctx.state(SessionWrites)
        candidate, number = name, 2
        while ((folder / candidate).exists() or (folder / candidate).is_symlink()) \
                and not writes.may_replace(folder / candidate):
            candidate, number = f"{name.removesuffix('.png')}-{number}.png", number + 1
        return f"{FIGURES}/{candidate}"
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", default_stem).strip("-.")[:80] or "figure"
    folder = ctx.workspace_root / FIGURES
    name, number = f"{stem}.png", 2
    while (folder / name).exists() or (folder / name).is_symlink():
        name, number = f"{stem}-{number}.png", number + 1
    return f"{FIGURES}/{name}"


def _summary(kind: str, x: Quantity, y: Quantity | None, drawing: Drawing, request: PlotRequest) -> str:
    axes = f"x = {x.axis_label}" + (f", y = {y.axis_label}" if y is not None else "")
    summary = f"{kind}: {axes}; {drawing.plotted:,} of {drawing.rows:,} rows plotted"
    if request.overlay is not None:
        summary += f"; '{request.overlay.label}' overplotted: {request.overlay.plotted:,} rows"
    return summary


def _result_text(rel: str, source: str, title: str, size: tuple[int, int], x: Quantity, y: Quantity | None,
                 drawing: Drawing, request: PlotRequest) -> str:
    from astro_cli.plots.columns import describe_masked

    lines = [f"Saved {rel} ({size[0]}×{size[1]} px PNG): {title}, from {source}."]
    shown = [f"x: {x.axis_label}" + (f", labelled '{request.xlabel}'" if request.xlabel else "")]
    if y is not None or request.ylabel:
        shown.append(f"y: {y.axis_label if y is not None else 'rows per bin'}"
                     + (f", labelled '{request.ylabel}'" if request.ylabel else ""))
    lines.append("; ".join(shown) + ".")
    counted = f"Plotted {drawing.plotted:,} of {drawing.rows:,} rows"
    if drawing.skipped:
        masked = describe_masked([q for q in (x, y) if q is not None])
        counted += f"; {drawing.skipped:,} skipped (a value masked or not finite{': ' + masked if masked else ''})"
    lines.append(counted + ".")
    lines += [note[0].upper() + note[1:] + "." for note in drawing.notes]
    lines.append("The researcher sees the figure by its path; refer to it by that path.")
    return "\n".join(lines)


@tool(name="plot_table", read_only=False, needs_permission=True, key_argument="table", timeout=120.0,
      description=DESCRIPTION)
def plot_table(ctx: ToolContext, table: str, kind: Literal["scatter", "histogram", "cmd", "sky"],
               x: str | None = None, y: str | None = None, title: str | None = None, bins: int | None = None,
               projection: Literal["auto", "aitoff", "plain"] | None = None, output: str | None = None,
               xlabel: str | None = None, ylabel: str | None = None, xerr: str | None = None,
               yerr: str | None = None, overplot: Overlay | None = None) -> ToolResult:
    """Args:
        table: Path in the workspace, e.g. data/gaia.ecsv.
        bins: Histogram bins (default: automatic).
        projection: Sky plots only.
        output: File name in figures/ (default: table-kind.png).
    """
    args: dict[str, Any] = {"table": table, "kind": kind, "x": x, "y": y, "title": title, "bins": bins,
                            "projection": projection, "output": output, "xlabel": xlabel, "ylabel": ylabel,
                            "xerr": xerr, "yerr": yerr, "overplot": overplot}
    return _plot(ctx, args)


def _plot(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    """The figure for plot_table's arguments (as the model named them), written under figures/."""
    from astro_cli.agent.events import FigureSaved
    from astro_cli.plots.columns import quantity
    from astro_cli.plots.draw import DPI, KIND_TITLES, KINDS, PlotRequest, draw, png_bytes
    from astro_cli.plots.options import error_bar, overlay
    from astro_cli.tools.table_read import read_table

    raw = str(args.get("table") or "").strip()
    if not raw:
        raise ToolError("Give 'table': the path of a table in the workspace, e.g. data/gaia.ecsv.")
    kind = str(args.get("kind") or "").strip().lower()
    if kind not in KINDS:
        raise ToolError(f"Unknown plot kind '{kind}'; choose one of {', '.join(KINDS)}.")
    path = ctx.resolve_path(raw, must_exist=True)
    if path.is_dir():
        raise ToolError(f"'{raw}' is a folder; give the table file inside it.")
    source = relative(ctx, path)
    table = read_table(path, source)
    ctx.touched(path)
    x_text, y_text = default_axes(kind, table, str(args.get("x") or "").strip(), str(args.get("y") or "").strip())
    x = quantity(table, x_text)
    y = quantity(table, y_text) if y_text and kind != "histogram" else None
    title = str(args.get("title") or "").strip() or f"{KIND_TITLES[kind]} of {path.name}"
    bins = args.get("bins")
    if bins is not None and (not isinstance(bins, int) or not 1 <= bins <= 1000):
        raise ToolError("'bins' must be a whole number from 1 to 1000.")
    request = PlotRequest(kind, x, y, title, bins, str(args.get("projection") or "auto"),
                          int(ctx.settings.typed["plots.max_points"]), xlabel=str(args.get("xlabel") or "").strip(),
                          ylabel=str(args.get("ylabel") or "").strip(), label=path.name,
                          xerr=error_bar(table, str(args.get("xerr") or ""), x, "xerr", kind),
                          yerr=error_bar(table, str(args.get("yerr") or ""), y, "yerr", kind),
                          overlay=overlay(ctx, args.get("overplot"), kind, (x, y), (x_text, y_text)))
    drawing = draw(request)
    png = png_bytes(drawing, title, source)
    rel = figure_name(ctx, str(args.get("output") or ""), f"{path.name.split('.')[0]}-{kind}")
    writes = ctx.state(SessionWrites)
    replace = writes.may_replace(ctx.workspace_root / rel)  # else a name taken meanwhile fails, nothing lost
    written = ctx.confinement.write_bytes(rel, png, replace=replace)
    writes.add(written)
    ctx.touched(written)
    width, height = (int(round(v * DPI)) for v in drawing.figure.get_size_inches())
    summary = _summary(kind, x, y, drawing, request)
    ctx.emit(FigureSaved(call_id=ctx.call_id, path=rel, absolute=str(written), title=title, summary=summary,
                         width=width, height=height, agent=ctx.agent))
    data = {"figure": rel, "kind": kind, "title": title, "table": source, "rows": drawing.rows,
            "plotted": drawing.plotted, "skipped": drawing.skipped, "mode": drawing.mode,
            "error_bars": drawing.error_bars}
    if request.overlay is not None:
        data["overplot"] = {"table": request.overlay.source, "label": request.overlay.label,
                            "rows": request.overlay.rows, "plotted": request.overlay.plotted}
    text = _result_text(rel, source, title, (width, height), x, y, drawing, request)
    asked = str(args.get("output") or "").strip().removeprefix("./").removeprefix(FIGURES + "/")
    if asked and Path(rel).stem != asked.removesuffix(".png"):
        text += (f"\n{FIGURES}/{asked.removesuffix('.png')}.png already exists and this session did not draw it, "
                 f"so the figure went to {rel}.")
    return ToolResult(text, data=data)


def figures_section(app: AppContext, row: dict[str, Any]) -> str | None:
    """The 'Figures' section of `astro sessions show/export`: each figure the session saved."""
    lines = []
    for stored in app.sessions.messages(row["id"]):
        message, meta = stored.message, stored.meta or {}
        data = meta.get("data") if isinstance(meta.get("data"), dict) else None
        if message.get("role") != "tool" or message.get("name") != "plot_table" or not meta.get("ok") or not data:
            continue
        second = data.get("overplot") if isinstance(data.get("overplot"), dict) else None
        lines.append(f"- `{data.get('figure')}` (turn {stored.turn}): {data.get('title')}, from `{data.get('table')}`; "
                     f"{data.get('plotted', 0):,} of {data.get('rows', 0):,} rows plotted"
                     + (f"; `{second.get('table')}` overplotted ({second.get('plotted', 0):,} rows)" if second else ""))
    return "\n".join(lines) or None


def install(app: AppContext) -> None:
    app.tools.register(as_tool(plot_table))
    transcript_sections(app).add(TranscriptSection("Figures", figures_section))
