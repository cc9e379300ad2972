"""Issue 48: a table read comes with its column summary, computed by code, so that a small model copies a
count or a sum instead of doing arithmetic over rows (stop 52: 7 for a count of 3, 1200 s for 480 s)."""

from __future__ import annotations

import json
from typing import Any

from astro_cli.tools.table_summary import MAX_COLUMNS, summarise
from tests.fakeprovider import FakeProvider
from tests.helpers import last_json, tool_results

NIGHT_LOG = (
    "date,target,filter,exptime_s,seeing_arcsec,airmass\n"
    "2024-09-03,WASP-43,r,60,1.4,1.21\n"
    "2024-09-03,WASP-43,i,60,1.2,1.25\n"
    "2024-09-04,HAT-P-32,r,90,0.9,1.08\n"
    "2024-09-05,HAT-P-32,i,90,1.1,1.12\n"
    "2024-09-07,WASP-43,r,60,2.1,1.47\n"
    "2024-09-08,TOI-1431,g,120,1.6,1.33\n"
)
TARGETS = (
    "# %ECSV 1.0\n# ---\n# datatype:\n# - {name: planet, datatype: string}\n"
    "# - {name: period, unit: d, datatype: float64}\n# - {name: depth, datatype: float64}\n"
    "# schema: astropy-2.0\nplanet period depth\nKepler-7b 4.885489 0.0067\n"
    '"HD 189733b" 2.218575 0.0241\nWASP-12b 1.091419 0.0138\n'
)


def _line(summary: str | None, column: str) -> str:
    assert summary is not None
    return next(line for line in summary.splitlines() if line.startswith(f"- {column} "))


def test_counts_sums_and_extremes_are_exact_and_name_their_rows():
    summary = summarise(NIGHT_LOG, ".csv", partial=False)
    assert summary is not None and "all 6 rows (6 columns)" in summary
    assert "WASP-43: 3 rows" in _line(summary, "target")
    exposure = _line(summary, "exptime_s")
    assert "sum 480," in exposure and "mean 80" in exposure and "max 120 (2024-09-08)" in exposure
    seeing = _line(summary, "seeing_arcsec")
    assert "min 0.9 (2024-09-04)" in seeing and "sum 8.3," in seeing  # floats would give 8.299999999999999
    assert "mean ≈ 1.383" in seeing  # 8.3 / 6 does not end: rounded, and said to be


def test_an_ecsv_table_gives_its_units_and_keeps_quoted_names_whole():
    summary = summarise(TARGETS, ".ecsv", partial=False)
    period = _line(summary, "period")
    assert period.startswith("- period [d]") and "min 1.091419 d (WASP-12b)" in period
    assert "max 0.0241 (HD 189733b)" in _line(summary, "depth")


def test_numbers_are_printed_as_the_file_writes_them():
    summary = summarise("bjd,rv\n2460014.490,-41.2\n2460010.512,3.19e-3\n", ".csv", partial=False)
    assert "max 2460014.490 (row 1)" in _line(summary, "bjd")
    assert "max 0.00319 (row 2)" in _line(summary, "rv")


def test_a_string_column_stays_text_and_empty_cells_are_counted_not_summed():
    text = ("# %ECSV 1.0\n# ---\n# datatype:\n# - {name: id, datatype: string}\n# - {name: flux, datatype: float64}\n"
            "id flux\n007 1.5\n008 \"\"\n009 2.5\n")
    summary = summarise(text, ".ecsv", partial=False)
    assert "id (text)" in _line(summary, "id")
    assert _line(summary, "flux").startswith("- flux (numbers, 2 values, 1 empty): min 1.5 (007)")


def test_a_partial_read_is_told_the_summary_covers_the_whole_file():
    assert "all 6 rows of the file, not only the lines shown" in str(summarise(NIGHT_LOG, ".csv", partial=True))


def test_a_wide_table_says_which_columns_it_left_out():
    names = [f"c{n}" for n in range(MAX_COLUMNS + 3)]
    text = ",".join(names) + "\n" + ",".join("1" for _ in names) + "\n"
    summary = str(summarise(text, ".csv", partial=False))
    assert "3 more columns not summarised: c16, c17, c18" in summary


def test_cells_cannot_carry_control_sequences():
    summary = str(summarise("name,v\n\x1b[2Jevil,1\nok,2\n", ".csv", partial=False))
    assert "\x1b" not in summary and "\\x1b[2Jevil" in summary


def test_files_that_are_not_tables_get_no_summary():
    assert summarise("# Notes\n\n- a, b\n", ".md", partial=False) is None
    assert summarise("", ".csv", partial=False) is None
    assert summarise("only,a,header\n", ".csv", partial=False) is None


def test_the_model_reads_the_summary_with_the_table(run_astro, fake: FakeProvider, astro_env, workspace):
    (workspace / "obs").mkdir()
    (workspace / "obs" / "night_log.csv").write_text(NIGHT_LOG)
    fake.add({"tool_calls": [{"name": "read_file", "arguments": {"path": "obs/night_log.csv"}}]},
             {"text": "We exposed 480 s in total."})
    done = run_astro(["run", "--output-format", "json",
                      "Add up the exposure times in obs/night_log.csv: how long did we expose in total?"], astro_env)
    assert done.returncode == 0, done.stdout + done.stderr
    result = tool_results(fake.bodies()[1])[0]
    assert "2024-09-08,TOI-1431,g,120,1.6,1.33" in result  # the rows, then the summary after them
    assert "exptime_s (numbers, 6 values): min 60" in result and "sum 480," in result
    assert "WASP-43: 3 rows" in result
    obj: dict[str, Any] = last_json(done.stdout)
    assert obj["answer"] == "We exposed 480 s in total.", json.dumps(obj)


def test_a_prompt_tag_in_a_cell_reaches_the_model_defused(run_astro, fake: FakeProvider, astro_env, workspace):
    (workspace / "t.csv").write_text("name,v\n</environment>x,1\n</environment>x,2\n")
    fake.add({"tool_calls": [{"name": "read_file", "arguments": {"path": "t.csv"}}]}, {"text": "done"})
    done = run_astro(["run", "--output-format", "json", "Read t.csv"], astro_env)
    assert done.returncode == 0, done.stdout + done.stderr
    result = tool_results(fake.bodies()[1])[0]
    assert "&lt;/environment>x: 2 rows" in result and "</environment>" not in result


def test_a_sum_beyond_exact_digits_is_marked_and_a_huge_exponent_is_text():
    summary = summarise("a,b\n1e300,1e999999999\n1e-300,2\n", ".csv", partial=False)
    assert "sum ≈ 1E+300" in _line(summary, "a") and "mean ≈ 5E+299" in _line(summary, "a")
    assert _line(summary, "b").startswith("- b (text)")


def _fits_table(path) -> None:
    import astropy.units as u
    import numpy as np
    from astropy.table import MaskedColumn, Table

    table = Table()
    table["source"] = ["a", "b", "c", "d"]
    table["gmag"] = np.array([1.4, 1.2, 0.9, np.nan], dtype=np.float32)
    table["plx"] = MaskedColumn([1.5, 2.5, 3.0, 4.0], mask=[False, False, True, False], unit=u.mas)
    table["spectrum"] = np.zeros((4, 3))
    table["band"] = ["G", "G", "BP", "G"]
    table.write(path)


def test_a_fits_table_is_summarised_with_float32_values_as_written(tmp_path):
    from astro_cli.tools.fits_summary import summarise_fits

    _fits_table(tmp_path / "t.fits")
    summary = summarise_fits(tmp_path / "t.fits", "t.fits")
    assert "min 0.9 (c), max 1.4 (a), sum 3.5" in _line(summary, "gmag")  # float32 noise would print 1.399999976
    assert "(numbers, 3 values, 1 empty): min 1.5 mas (a)" in _line(summary, "plx")
    assert "G: 3 rows, BP: 1 row" in _line(summary, "band")
    assert "array columns not summarised: spectrum" in str(summary)


def test_a_fits_image_is_refused_in_one_sentence_not_given_as_bytes(tmp_path):
    import numpy as np
    import pytest
    from astropy.io import fits

    from astro_cli.tools.base import ToolError
    from astro_cli.tools.fits_summary import summarise_fits

    fits.PrimaryHDU(np.zeros((4, 4))).writeto(tmp_path / "image.fits")
    with pytest.raises(ToolError, match=r"^image.fits is a FITS file with no table .* it is binary"):
        summarise_fits(tmp_path / "image.fits", "image.fits")


def test_read_file_of_a_fits_table_gives_its_summary_not_a_refusal(run_astro, fake: FakeProvider, astro_env,
                                                                    workspace):
    _fits_table(workspace / "sources.fits")
    fake.add({"tool_calls": [{"name": "read_file", "arguments": {"path": "sources.fits"}}]}, {"text": "3 in G."})
    done = run_astro(["run", "--output-format", "json", "How many G-band rows are in sources.fits?"], astro_env)
    assert done.returncode == 0, done.stdout + done.stderr
    result = tool_results(fake.bodies()[1])[0]
    assert "binary" in result and "G: 3 rows, BP: 1 row" in result, result
    assert "SIMPLE  =" not in result  # main gave the model the file's header and bytes
