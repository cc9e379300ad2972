"""Issue 47 (plot options): the model sets axis labels, error bars (symmetric or asymmetric, masked
errors counted) and a second workspace table overplotted with a legend, through the real astro
process and the scripted model; bad options get one sentence and no figure."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.helpers import tool_results
from tests.paths import FIXTURES_DIR

CATALOG = FIXTURES_DIR / "catalog"
KANG = "kang2010.xml"  # VizieR J/ApJ/706/83/ysos: 50 YSOs, J/H/Ks with masked values, _Glon/_Glat
CLUSTER = "cluster.ecsv"  # written by _cluster()


def _cluster(rows: int = 300):
    """A Gaia-like cluster result: magnitudes, parallaxes with errors (some masked, one negative), GSP-Phot
    distances with lower/upper bounds (a fifth masked), positions."""
    import numpy as np
    from astropy.table import MaskedColumn, Table

    rng = np.random.default_rng(47)
    parallax = rng.uniform(0.5, 8.0, rows)
    error = rng.uniform(0.01, 0.3, rows)
    error[7] = -1.0
    distance = 1000.0 / parallax
    gone = np.arange(rows) % 5 == 0
    table = Table()
    table["ra"] = MaskedColumn(rng.uniform(56.0, 57.5, rows), unit="deg")
    table["dec"] = MaskedColumn(rng.uniform(23.5, 24.8, rows), unit="deg")
    table["phot_g_mean_mag"] = MaskedColumn(rng.uniform(6.0, 19.0, rows), unit="mag")
    table["bp_rp"] = MaskedColumn(rng.uniform(0.0, 3.0, rows), unit="mag")
    table["parallax"] = MaskedColumn(parallax, unit="mas")
    table["parallax_error"] = MaskedColumn(error, unit="mas", mask=np.arange(rows) % 10 == 3)
    table["distance_gspphot"] = MaskedColumn(distance, unit="pc", mask=gone)
    table["distance_gspphot_lower"] = MaskedColumn(distance * 0.9, unit="pc", mask=gone)
    table["distance_gspphot_upper"] = MaskedColumn(distance * 1.2, unit="pc", mask=gone | (np.arange(rows) % 7 == 1))
    return table


def _data(workspace: Path):
    """data/ with the cluster, the Kang YSOs, and a second table: the cluster stars nearer than 500 pc,
    their parallax in arcsec (so it must be converted to the first table's mas)."""
    data = workspace / "data"
    data.mkdir(exist_ok=True)
    shutil.copy(CATALOG / KANG, data / KANG)
    cluster = _cluster()
    cluster.write(data / CLUSTER, format="ascii.ecsv")
    near = cluster[cluster["parallax"] > 2.0]["phot_g_mean_mag", "bp_rp", "parallax", "ra", "dec"]
    near["parallax"] = near["parallax"].to("arcsec")
    near.write(data / "near.ecsv", format="ascii.ecsv")
    return cluster


def _metadata(path: Path) -> dict:
    from PIL import Image

    with Image.open(path) as image:
        return json.loads(image.text["Description"])


def _finite(*columns) -> int:
    import numpy as np

    keep = np.ones(len(columns[0]), dtype=bool)
    for column in columns:
        keep &= ~np.ma.getmaskarray(column) & np.isfinite(np.ma.filled(column.astype(float), np.nan))
    return int(keep.sum())


# --- the plotting function's Axes -------------------------------------------------------------------
def test_error_bars_are_drawn_in_the_axis_unit_and_a_masked_error_keeps_its_point_but_no_bar():
    import numpy as np
    from astropy.table import MaskedColumn, Table
    from matplotlib.container import ErrorbarContainer

    from astro_cli.plots.columns import Quantity
    from astro_cli.plots.draw import PlotRequest, draw
    from astro_cli.plots.options import error_bar

    table = Table({"ra": [10.0, 10.001, 10.002, 10.003], "dec": [1.0, 1.1, 1.2, 1.3]})
    table["ra"].unit = "deg"
    table["ra_error"] = MaskedColumn([3600.0, 7200.0, 1.0, -5.0], unit="mas", mask=[False, False, True, False])
    ra, dec = Quantity(table["ra"].data.astype(float), "ra", "deg"), Quantity(table["dec"].data.astype(float), "dec")
    bar = error_bar(table, "ra_error", ra, "xerr", "scatter")
    assert bar is not None and bar.lower.unit == "deg" and np.allclose(bar.lower.values[:2], [0.001, 0.002])
    drawing = draw(PlotRequest("scatter", ra, dec, xerr=bar))
    [container] = [c for c in drawing.axes.containers if isinstance(c, ErrorbarContainer)]
    assert len(container.lines[2][0].get_segments()) == 2  # the masked and the negative error: no bar
    assert drawing.plotted == 4 and drawing.error_bars == {"x": 2}
    assert any("on 2 of 4 points; 2 drawn without one" in note and "ra_error 1 masked" in note
               for note in drawing.notes), drawing.notes


def test_a_second_table_on_a_histogram_is_an_outline_over_the_same_bins_with_its_own_labels():
    from astro_cli.plots.columns import quantity
    from astro_cli.plots.draw import PlotRequest, draw
    from astro_cli.plots.layers import Overlay

    cluster = _cluster()
    near = cluster[cluster["parallax"] > 2.0]
    second = Overlay(quantity(near, "phot_g_mean_mag"), None, "within 500 pc", "data/near.ecsv")
    drawing = draw(PlotRequest("histogram", quantity(cluster, "phot_g_mean_mag"), bins=13, label="all",
                               xlabel="G", ylabel="stars", overlay=second))
    assert (drawing.axes.get_xlabel(), drawing.axes.get_ylabel()) == ("G", "stars")
    assert [t.get_text() for t in drawing.axes.get_legend().get_texts()] == ["all", "within 500 pc"]
    assert drawing.overplotted == len(near) and drawing.metadata()["legend"] == ["all", "within 500 pc"]
    outline = drawing.axes.patches[-1]  # histtype="step" draws one polygon
    assert outline.get_label() == "within 500 pc" and not outline.get_fill()


def test_on_a_density_map_error_bars_are_left_out_and_said_to_be_and_an_aitoff_sky_takes_a_second_table():
    import numpy as np

    from astro_cli.plots.columns import Quantity, quantity
    from astro_cli.plots.draw import PlotRequest, draw
    from astro_cli.plots.layers import ErrorBar, Overlay

    cluster = _cluster()
    colour, magnitude = quantity(cluster, "bp_rp"), quantity(cluster, "phot_g_mean_mag")
    second = Overlay(colour, magnitude, "again", "data/again.ecsv")
    dense = draw(PlotRequest("cmd", colour, magnitude, max_points=100, label="all",
                             yerr=ErrorBar("parallax_error", quantity(cluster, "parallax_error")), overlay=second))
    assert dense.mode == "density" and dense.error_bars == {}
    assert "error bars are not drawn on a density map" in dense.notes
    assert dense.metadata()["legend"] == ["all", "again"]
    assert any("a random sample of its 300 usable rows" in note for note in dense.notes)  # 100 of them drawn
    ra = Quantity(np.array([10.0, 120.0, 200.0, 350.0]), "ra", "deg")
    dec = Quantity(np.array([-60.0, 0.0, 30.0, 80.0]), "dec", "deg")
    other = Overlay(Quantity(np.radians([90.0, 270.0]), "ra", "rad"), Quantity(np.array([10.0, np.nan]), "dec", "deg"),
                    "two", "data/two.ecsv")
    wide = draw(PlotRequest("sky", ra, dec, overlay=other))
    assert wide.axes.name == "aitoff" and wide.overplotted == 1
    assert np.allclose(wide.axes.collections[-1].get_offsets()[0], np.radians([-90.0, 10.0]))  # RA 90° left of 0


# --- through the real astro process -------------------------------------------------------------------
def test_the_model_labels_the_axes_draws_asymmetric_error_bars_and_overplots_a_second_table(
        fake, astro_env, workspace, run_astro):
    gaia = _data(workspace)
    distance = {"table": f"data/{CLUSTER}", "kind": "scatter", "x": "phot_g_mean_mag", "y": "distance_gspphot",
                "yerr": "distance_gspphot - distance_gspphot_lower, distance_gspphot_upper - distance_gspphot",
                "xlabel": "G (Gaia DR3)", "ylabel": "GSP-Phot distance", "output": "distance.png"}
    cmd = {"table": f"data/{CLUSTER}", "kind": "cmd", "x": "bp_rp", "y": "phot_g_mean_mag + 5*log10(parallax/100)",
           "overplot": {"table": "data/near.ecsv", "label": "within 500 pc",
                        "y": "phot_g_mean_mag + 5*log10(parallax*1000/100)"}, "output": "cmd.png"}
    sky = {"table": f"data/{CLUSTER}", "kind": "sky", "overplot": {"table": "data/near.ecsv"}, "output": "sky.png"}
    fake.add({"tool_calls": [{"name": "plot_table", "arguments": args} for args in (distance, cmd, sky)]},
             {"text": "done"})
    result = run_astro(["run", "--allow", "plot_table", "plot the distances and the CMD"], astro_env)
    assert result.returncode == 0, result.stderr
    told = tool_results(fake.bodies()[-1])
    assert all(text.startswith("Saved figures/") for text in told), told

    figures = workspace / "figures"
    meta = _metadata(figures / "distance.png")
    assert (meta["x"], meta["y"]) == ("G (Gaia DR3)", "GSP-Phot distance")
    plotted = _finite(gaia["phot_g_mean_mag"], gaia["distance_gspphot"])
    with_bars = _finite(gaia["phot_g_mean_mag"], gaia["distance_gspphot"], gaia["distance_gspphot_lower"],
                        gaia["distance_gspphot_upper"])
    assert meta["plotted"] == plotted and meta["error_bars"] == {"y": with_bars}
    assert (plotted, with_bars) == (240, 206)
    assert "labelled 'GSP-Phot distance'" in told[0] and "Error bars on y (asymmetric)" in told[0]
    assert "on 206 of 240 points; 34 drawn without one" in told[0] and "distance_gspphot_upper" in told[0]

    meta = _metadata(figures / "cmd.png")
    near = int((gaia["parallax"] > 2.0).sum())
    assert meta["legend"] == [CLUSTER, "within 500 pc"] and meta["y_inverted"] is True
    assert meta["overplotted"] == near and f"Overplotted 'within 500 pc' from data/near.ecsv: {near:,} of" in told[1]
    assert "figure: figures/cmd.png (cmd: x = bp_rp [mag]" in result.stderr
    assert f"'within 500 pc' overplotted: {near:,} rows)" in result.stderr

    meta = _metadata(figures / "sky.png")  # the second table's own RA/Dec, found by name
    assert meta["legend"] == [CLUSTER, "near.ecsv"] and meta["overplotted"] == near

    import sqlite3

    db = sqlite3.connect(workspace / ".astro" / "astro.db")
    [(session_id,)] = db.execute("SELECT id FROM sessions").fetchall()
    db.close()
    shown = run_astro(["sessions", "show", session_id], astro_env).stdout
    assert "figures/cmd.png" in shown and f"data/near.ecsv overplotted ({near:,} rows)" in shown


def test_an_overplot_in_another_unit_is_drawn_in_the_axis_unit(fake, astro_env, workspace, run_astro):
    _data(workspace)
    plot = {"table": f"data/{CLUSTER}", "kind": "scatter", "x": "phot_g_mean_mag", "y": "parallax",
            "overplot": {"table": "data/near.ecsv"}, "output": "parallax.png"}
    fake.add({"tool_calls": [{"name": "plot_table", "arguments": plot}]}, {"text": "done"})
    result = run_astro(["run", "--allow", "plot_table", "plot"], astro_env)
    assert result.returncode == 0, result.stderr
    told = tool_results(fake.bodies()[-1])[-1]
    assert "Saved figures/parallax.png" in told and "(y converted from arcsec to mas)" in told, told

    from astro_cli.plots.columns import quantity
    from astro_cli.plots.draw import PlotRequest, draw
    from astro_cli.plots.layers import Overlay
    from astro_cli.plots.options import in_unit
    from astro_cli.tools.table_read import read_table

    gaia, near = (read_table(workspace / "data" / name, name) for name in (CLUSTER, "near.ecsv"))
    second = Overlay(quantity(near, "phot_g_mean_mag"), in_unit(quantity(near, "parallax"), "mas", "parallax"),
                     "near", "data/near.ecsv")
    drawing = draw(PlotRequest("scatter", quantity(gaia, "phot_g_mean_mag"), quantity(gaia, "parallax"),
                               overlay=second))
    drawn = drawing.axes.collections[-1].get_offsets()[:, 1]
    assert float(drawn.min()) > 2.0  # in mas on the mas axis, not 0.002


def test_bad_plot_options_get_one_sentence_and_no_figure(fake, astro_env, workspace, tmp_path, run_astro):
    _data(workspace)
    outside = tmp_path / "elsewhere.ecsv"
    shutil.copy(workspace / "data" / "near.ecsv", outside)
    base = {"table": f"data/{CLUSTER}", "kind": "scatter", "x": "phot_g_mean_mag", "y": "parallax"}
    calls = [
        {**base, "kind": "histogram", "xerr": "parallax_error"},
        {**base, "yerr": "a, b, c"},
        {**base, "yerr": "parallax_error,"},
        {**base, "yerr": "parallax_error"},  # the same unit: this one is drawn
        {**base, "xerr": "parallax_error"},  # mas against a magnitude axis
        {**base, "overplot": {"table": str(outside)}},
        {**base, "overplot": {"table": "data/missing.ecsv"}},
        {**base, "overplot": {"table": f"data/{KANG}"}},  # no phot_g_mean_mag in it
        {**base, "overplot": {"x": "phot_g_mean_mag"}},  # the schema requires its table
        {**base, "overplot": {"table": "data/near.ecsv", "colour": "red"}},
    ]
    fake.add({"tool_calls": [{"name": "plot_table", "arguments": args} for args in calls]}, {"text": "done"})
    result = run_astro(["run", "--allow", "plot_table", "plot"], astro_env)
    assert result.returncode == 0, result.stderr
    told = tool_results(fake.bodies()[-1])
    assert len(told) == len(calls)
    expected = ["error bars on scatter and cmd plots only", "two separated by a comma", "two separated by a comma",
                "Saved figures/", "does not convert to the axis's mag", "outside the workspace", "missing.ecsv",
                "no column 'phot_g_mean_mag'", "'table' is a required property", "colour"]
    for text, fragment in zip(told, expected):
        assert fragment in text, text
        assert "Traceback" not in text, text
        if not text.startswith("Saved"):
            assert len(text.strip().splitlines()) == 1, text
    assert sorted(p.name for p in (workspace / "figures").iterdir()) == ["cluster-scatter.png"]
