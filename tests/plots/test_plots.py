"""Issue 33 (plots): plot_table draws a recorded catalogue table as a PNG in figures/, through the real
astro process and the scripted model; bad input gets one sentence; the figure joins the transcript."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.helpers import tool_results
from tests.paths import FIXTURES_DIR

CATALOG = FIXTURES_DIR / "catalog"
KANG = "kang2010.xml"  # VizieR J/ApJ/706/83/ysos: 50 YSOs, J/H/Ks with masked values, _Glon/_Glat
GAIA = "1712337806100O-result.ecsv"  # a Gaia DR3 gaia_source result with units and UCDs


def _data(workspace: Path) -> Path:
    data = workspace / "data"
    data.mkdir(exist_ok=True)
    for name in (KANG, GAIA):
        shutil.copy(CATALOG / name, data / name)
    return data


def _quantities(name: str, *texts: str):
    from astro_cli.plots.columns import quantity
    from astro_cli.tools.table_read import read_table

    table = read_table(CATALOG / name, name)
    return [quantity(table, text) for text in texts]


# --- the plotting function's Axes -------------------------------------------------------------------
def test_a_colour_magnitude_diagram_has_its_magnitude_axis_inverted_and_units_on_the_axes():
    from astro_cli.plots.draw import PlotRequest, draw

    colour, magnitude = _quantities(KANG, "Jmag - Ksmag", "Ksmag")
    drawing = draw(PlotRequest("cmd", colour, magnitude))
    assert drawing.axes.yaxis_inverted() and not drawing.axes.xaxis_inverted()
    assert drawing.axes.get_xlabel() == "Jmag - Ksmag [mag]" and drawing.axes.get_ylabel() == "Ksmag [mag]"
    # 37 rows have no J, 25 no Ks (the same 25 among them): 13 stars have both.
    assert (drawing.rows, drawing.plotted, drawing.skipped) == (50, 13, 37)
    assert colour.masked == {"Jmag": 37, "Ksmag": 25}
    scatter = draw(PlotRequest("scatter", colour, magnitude))
    assert not scatter.axes.yaxis_inverted()


def test_a_sky_plot_puts_east_to_the_left_and_a_wide_field_in_aitoff():
    import numpy as np

    from astro_cli.plots.columns import Quantity
    from astro_cli.plots.draw import PlotRequest, draw

    lon, lat = _quantities(KANG, "_Glon", "_Glat")
    small = draw(PlotRequest("sky", lon, lat))
    assert small.axes.xaxis_inverted() and small.axes.name == "rectilinear" and small.plotted == 50
    ra = Quantity(np.array([10.0, 120.0, 200.0, 350.0]), "ra", "deg")
    dec = Quantity(np.array([-60.0, 0.0, 30.0, 80.0]), "dec", "deg")
    wide = draw(PlotRequest("sky", ra, dec))
    assert wide.axes.name == "aitoff" and wide.plotted == 4


def test_past_max_points_a_cmd_becomes_a_density_map_and_a_sky_plot_a_sample():
    import numpy as np

    from astro_cli.plots.columns import Quantity
    from astro_cli.plots.draw import PlotRequest, draw

    rng = np.random.default_rng(1)
    colour = Quantity(rng.normal(1.0, 0.3, 5_000), "bp_rp", "mag")
    magnitude = Quantity(rng.normal(15.0, 2.0, 5_000), "phot_g_mean_mag", "mag")
    dense = draw(PlotRequest("cmd", colour, magnitude, max_points=1_000))
    assert dense.mode == "density" and dense.plotted == 5_000 and dense.axes.yaxis_inverted()
    assert any("density map" in note for note in dense.notes)
    ra = Quantity(rng.uniform(0, 360, 5_000), "ra", "deg")
    dec = Quantity(np.append(rng.uniform(-80, 80, 4_999), np.nan), "dec", "deg")
    sample = draw(PlotRequest("sky", ra, dec, max_points=1_000))
    assert (sample.mode, sample.plotted, sample.skipped) == ("sample", 1_000, 1)


def test_expressions_are_parsed_not_evaluated():
    import numpy as np

    from astro_cli.tools.base import ToolError

    (colour,) = _quantities(GAIA, "phot_bp_mean_mag - phot_rp_mean_mag")
    (bp_rp,) = _quantities(GAIA, "bp_rp")
    assert colour.unit == "mag" and np.allclose(colour.values, bp_rp.values, atol=1e-4)
    (absolute,) = _quantities(GAIA, "phot_g_mean_mag + 5*log10(parallax/100)")
    assert absolute.unit == "mag"
    (quoted,) = _quantities(KANG, "`__3.6_` - `__4.5_`")
    assert quoted.unit == "mag"
    for hostile in ("__import__('os').system('touch pwned')", "ra.__class__", "Jmag; Ksmag", "lambda: 1"):
        with pytest.raises(ToolError) as caught:
            _quantities(KANG, hostile)
        assert "\n" not in str(caught.value)
    with pytest.raises(ToolError, match="Cannot add or subtract"):
        _quantities(KANG, "Jmag + _Glon")
    assert not Path("pwned").exists()


def test_fits_csv_and_votable_copies_of_a_table_plot_the_same(tmp_path):
    import warnings

    from astropy.table import Table

    from astro_cli.plots.columns import quantity
    from astro_cli.tools.table_read import read_table

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        original = Table.read(CATALOG / KANG, format="votable")
        original.write(tmp_path / "kang.fits")
        original.write(tmp_path / "kang.csv", format="ascii.csv")
    counts = []
    for name in ("kang.fits", "kang.csv"):
        table = read_table(tmp_path / name, name)
        colour = quantity(table, "Jmag - Ksmag")
        counts.append(int((colour.values == colour.values).sum()))  # finite rows
    assert counts == [13, 13]


def test_a_table_too_large_to_read_in_time_is_refused_in_one_sentence(monkeypatch):
    from astro_cli.tools import table_read
    from astro_cli.tools.base import ToolError

    monkeypatch.setattr(table_read, "MAX_TEXT_TABLE_BYTES", 10_000)  # the fixture is 20,706 bytes
    with pytest.raises(ToolError, match=r"is 0 MB, more than plot_table reads") as caught:
        table_read.read_table(CATALOG / KANG, KANG)
    assert "\n" not in str(caught.value)


# --- through the real astro process -------------------------------------------------------------------
def _figure_metadata(path: Path) -> dict:
    from PIL import Image

    with Image.open(path) as image:
        return json.loads(image.text["Description"])


def test_the_model_plots_a_recorded_catalogue_and_the_png_decodes_with_its_axes(
        fake, astro_env, workspace, run_astro):
    from matplotlib import image

    _data(workspace)
    fake.add({"tool_calls": [{"name": "plot_table", "arguments": {
        "table": f"data/{KANG}", "kind": "cmd", "x": "Jmag - Ksmag", "y": "Ksmag"}}]},
        {"text": "The CMD is in figures/kang2010-cmd.png."})
    result = run_astro(["run", "--allow", "plot_table", "Plot the CMD of the YSOs"], astro_env)
    assert result.returncode == 0, result.stderr
    png = workspace / "figures" / "kang2010-cmd.png"
    pixels = image.imread(png)
    assert pixels.shape[:2] == (750, 1050)  # height, width: 7 x 5 inches at 150 dpi
    meta = _figure_metadata(png)
    assert meta["y_inverted"] is True and meta["x"] == "Jmag - Ksmag [mag]" and meta["plotted"] == 13
    told = tool_results(fake.bodies()[-1])[-1]
    assert "Saved figures/kang2010-cmd.png (1050×750 px PNG)" in told
    assert "Plotted 13 of 50 rows; 37 skipped" in told and "Jmag 37 masked" in told
    assert "figure: figures/kang2010-cmd.png" in result.stderr  # not a terminal: the path, no image
    assert "\x1b" not in result.stderr
    db = sqlite3.connect(workspace / ".astro" / "astro.db")
    [(session_id,)] = db.execute("SELECT id FROM sessions").fetchall()
    db.close()
    shown = run_astro(["sessions", "show", session_id], astro_env)
    assert "Figures" in shown.stdout and "figures/kang2010-cmd.png" in shown.stdout


def test_bad_input_gets_one_sentence_and_nothing_outside_figures(fake, astro_env, workspace, tmp_path, run_astro):
    _data(workspace)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    shutil.copy(CATALOG / GAIA, outside / GAIA)
    (workspace / "data" / "linked.ecsv").symlink_to(outside / GAIA)
    calls = [
        {"table": f"data/{KANG}", "kind": "histogram", "x": "Vmag"},
        {"table": f"data/{KANG}", "kind": "histogram", "x": "SSTGLMC"},
        {"table": str(outside / GAIA), "kind": "sky"},
        {"table": "data/linked.ecsv", "kind": "sky"},
        {"table": f"data/{KANG}", "kind": "pie", "x": "Jmag"},
        {"table": f"data/{KANG}", "kind": "sky", "output": "../../escaped.png"},
        {"table": f"data/{KANG}", "kind": "scatter", "x": "Jmag"},
        {"table": "notes.txt", "kind": "histogram", "x": "a"},
    ]
    (workspace / "notes.txt").write_text("a\n1\n")
    fake.add({"tool_calls": [{"name": "plot_table", "arguments": args} for args in calls]}, {"text": "done"})
    result = run_astro(["run", "--allow", "plot_table", "plot"], astro_env)
    assert result.returncode == 0, result.stderr
    told = tool_results(fake.bodies()[-1])
    assert len(told) == len(calls)
    expected = ["no column 'Vmag'", "Column 'SSTGLMC' holds text, not numbers", "outside the workspace",
                "outside the workspace", "kind", "plain file name", "needs 'y'", "reads .ecsv, .csv"]
    for text, fragment in zip(told, expected):
        assert fragment in text, text
        assert "Traceback" not in text and len(text.strip().splitlines()) == 1, text
    assert not (workspace / "figures").exists() and not (tmp_path / "escaped.png").exists()


def test_a_figures_folder_that_links_outside_is_refused(fake, astro_env, workspace, tmp_path, run_astro):
    _data(workspace)
    target = tmp_path / "victim"
    target.mkdir()
    (workspace / "figures").symlink_to(target)
    fake.add({"tool_calls": [{"name": "plot_table", "arguments": {"table": f"data/{KANG}", "kind": "sky"}}]},
             {"text": "done"})
    result = run_astro(["run", "--allow", "plot_table", "plot"], astro_env)
    assert result.returncode == 0, result.stderr
    assert "outside the workspace" in tool_results(fake.bodies()[-1])[-1]
    assert list(target.iterdir()) == []


def test_plot_table_needs_permission_like_other_writes(fake, astro_env, workspace, run_astro):
    _data(workspace)
    fake.add({"tool_calls": [{"name": "plot_table", "arguments": {"table": f"data/{KANG}", "kind": "sky"}}]},
             {"text": "done"})
    result = run_astro(["run", "plot"], astro_env)
    refusal = tool_results(fake.bodies()[-1])[-1]
    assert "plot_table" in refusal and "--allow" in refusal, result.stderr
    assert not (workspace / "figures").exists()


def test_a_hostile_column_name_neither_drives_the_terminal_nor_breaks_the_figure(
        fake, astro_env, workspace, run_astro):
    osc = "\x1b]52;c;ZXZpbA==\x07"
    (workspace / "data").mkdir()
    (workspace / "data" / "evil.csv").write_text(f"x{osc}$\\frac{{1}}{{$,y\n1,2\n3,4\n5,6\n", encoding="utf-8")
    name = f"x{osc}$\\frac{{1}}{{$"
    fake.add({"tool_calls": [{"name": "plot_table", "arguments": {
        "table": "data/evil.csv", "kind": "scatter", "x": name, "y": "y", "title": "$\\badmacro$"}}]},
        {"text": "done"})
    result = run_astro(["run", "--allow", "plot_table", "plot"], astro_env)
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr
    assert "\\x1b]52" in result.stderr  # the name is shown, visibly escaped
    assert "Saved figures/evil-scatter.png" in tool_results(fake.bodies()[-1])[-1]
    assert (workspace / "figures" / "evil-scatter.png").stat().st_size > 10_000


def test_astro_starts_without_importing_matplotlib(tmp_path):
    import subprocess
    import sys

    code = ("import sys, os; from pathlib import Path; from astro_cli.bootstrap import build_app; "
            f"os.environ['ASTRO_HOME'] = {str(tmp_path / 'home')!r}; "
            f"app = build_app(workspace=Path({str(tmp_path)!r})).install_features(); "
            "assert 'plot_table' in app.tools; print(sorted(m for m in ('matplotlib', 'PIL') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_the_repl_prints_the_figure_path_under_its_tool_line_when_it_cannot_show_images(
        fake, astro_env, workspace, request):
    _data(workspace)
    astro_env["ASTRO_PERMISSIONS_ALLOW"] = "plot_table"  # read when the REPL fixture builds its app
    repl = request.getfixturevalue("repl")
    fake.add({"tool_calls": [{"name": "plot_table", "arguments": {"table": f"data/{KANG}", "kind": "histogram",
                                                                 "x": "Ksmag"}}]}, {"text": "Here it is."})
    output = repl.type_and_run("histogram of Ks\r\x04")
    tool_line = output.index("plot_table data/kang2010.xml")
    caption = output.index("figure: figures/kang2010-histogram.png (histogram: x = Ksmag [mag]; 25 of 50 rows plotted)")
    assert tool_line < caption < output.index("Here it is.")
    assert "\x1b" not in output


def test_an_output_name_taken_by_the_researchers_figure_goes_beside_it(fake, astro_env, workspace, run_astro):
    _data(workspace)
    figures = workspace / "figures"
    figures.mkdir()
    (figures / "cmd.png").write_bytes(b"the researcher's own figure")
    plot = {"table": f"data/{KANG}", "kind": "histogram", "x": "Ksmag", "output": "cmd.png"}
    fake.add({"tool_calls": [{"name": "plot_table", "arguments": plot}]},
             {"tool_calls": [{"name": "plot_table", "arguments": {**plot, "bins": 5}}]}, {"text": "done"})
    result = run_astro(["run", "--allow", "plot_table", "plot"], astro_env)
    assert result.returncode == 0, result.stderr
    assert (figures / "cmd.png").read_bytes() == b"the researcher's own figure"
    first, second = tool_results(fake.bodies()[1])[-1], tool_results(fake.bodies()[2])[-1]
    assert first.startswith("Saved figures/cmd-2.png") and second.startswith("Saved figures/cmd-2.png")
    assert "figures/cmd.png already exists and this session did not draw it" in first
    assert sorted(p.name for p in figures.iterdir()) == ["cmd-2.png", "cmd.png"]  # its own figure replaced
