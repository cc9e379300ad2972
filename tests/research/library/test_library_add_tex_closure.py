"""Issue 42: `astro library add ./x.tex` reads x.tex and what it inputs, never another paper of its
folder, and its tables, captions, title and macros as text; `astro library search Q -p ID` is the
search's --paper, not astro's own -p (print). The real astro process, keywords only (the tests'
environment turns vectors off)."""

from __future__ import annotations

import json
import shutil

from astro_cli.research.library.section_paths import section_paths
from tests.conftest import base_env
from tests.library_support import EMCEE_TEX, PAPERS

FEIDEN_TEX = PAPERS / "feiden_2016AA_ms.tex"


def test_a_tex_in_a_folder_of_two_papers_brings_only_itself_and_its_inputs(run_astro, workspace, tmp_path):
    env = base_env(tmp_path)
    folder = workspace / "drafts"
    (folder / "parts").mkdir(parents=True)
    emcee = EMCEE_TEX.read_text()
    # the named paper inputs a part from a sub-folder; the larger paper beside it must not be read
    emcee = emcee.replace("\\section{Introduction}", "\\input{parts/extra}\n\\section{Introduction}", 1)
    (folder / "emcee.tex").write_text(emcee)
    (folder / "parts" / "extra.tex").write_text("The quokka diagnostic of this draft is written in an input file.\n")
    shutil.copyfile(FEIDEN_TEX, folder / "feiden.tex")  # twice emcee's size: the old code read it instead
    added = run_astro(["library", "add", "./drafts/emcee.tex", "--year", "2013"], env)
    assert added.returncode == 0, added.stderr
    assert "The MCMC Hammer" in added.stdout.splitlines()[0]
    rows = json.loads(run_astro(["library", "list", "--json"], env).stdout)
    row = rows[0] if isinstance(rows, list) else rows["papers"][0]
    stored = workspace / row["source_path"]
    assert sorted(p.relative_to(stored).as_posix() for p in stored.rglob("*.tex")) == ["emcee.tex", "parts/extra.tex"]
    quokka = json.loads(run_astro(["library", "search", "quokka diagnostic", "--json"], env).stdout)["hits"]
    assert quokka and "quokka diagnostic" in quokka[0]["text"]
    walkers = json.loads(run_astro(["library", "search", "affine invariant ensemble walkers", "--json"], env).stdout)
    assert walkers["hits"]
    scorpius = json.loads(run_astro(["library", "search", "Upper Scorpius magnetic", "--json"], env).stdout)["hits"]
    assert not scorpius  # the other paper's text is not in the library


def test_search_dash_p_is_the_paper_filter(run_astro, workspace, tmp_path):
    env = base_env(tmp_path)
    shutil.copyfile(EMCEE_TEX, workspace / "emcee.tex")
    added = run_astro(["library", "add", "./emcee.tex", "--year", "2013", "--arxiv", "1202.3665"], env)
    assert added.returncode == 0, added.stderr
    found = run_astro(["library", "search", "acceptance fraction", "-p", "1202.3665", "--json"], env)
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)["hits"]
    assert hits and {hit["source"] for hit in hits} == {"1202.3665"}
    missing = run_astro(["library", "search", "acceptance fraction", "-p", "2401.99999"], env)
    assert missing.returncode != 0 and "No model is configured" not in missing.stderr
    assert "astro library list" in missing.stderr and "Traceback" not in missing.stderr


def test_latex_tables_captions_title_and_macros_read_as_text(run_astro, workspace, tmp_path):
    """A math table reads as the PDF route writes one, its caption whole, \\title from the preamble, and
    no macro of the paper's (optional argument, \\def with parameters, \\providecommand) left raw."""
    env = base_env(tmp_path)
    source = (PAPERS.parent / "latex42" / "outflow.tex").read_text()
    (workspace / "outflow.tex").write_bytes(source.replace("\n", "\r\n").encode())  # written on Windows
    added = run_astro(["library", "add", "./outflow.tex", "--year", "2024"], env)
    assert added.returncode == 0, added.stderr
    assert "outflow.tex: Fitted outflows of nearby starbursts (" in added.stdout.splitlines()[0]
    result = json.loads(run_astro(["library", "search", "NGC 253 outflow velocities", "--json", "-k", "20"],
                                  env).stdout)
    text = "\n".join(hit["text"] for hit in result["hits"])
    assert "NGC 253 | 8000 ± 700 | 10.4^{+0.2}_{−0.1}" in text
    assert "M82 | 5600 ± 300 | −1.5 × 10^{−4}" in text
    assert "Galaxy | v_{out} | log M_⋆" in text
    assert "[Caption: Fitted outflow velocities for the $z<0.1$ sample [abc], in km s$^{-1}$.]" in text
    assert "WALRUS sample with Planck priors; the winds and jets are fast in ΛCDM." in text
    assert "\r" not in text
    assert "\\tau = 0.0506\\pm 0.0086" in text and "lowE" in text
    prose = text.replace("$^{-1}$", "")
    for raw in ("\\oneonesig", "[3cm]", "\\weirdmacro", "\\kms", "\\mysurvey", "\\pair", "\\hline", "\\begin{tabular}"):
        assert raw not in prose
    assert "Unknown kept words here." in text
    # the table with its caption is a chunk of its own, after its section's prose (issue 42, item 5)
    table = [hit for hit in result["hits"] if "NGC 253 | 8000 ± 700" in hit["text"]]
    assert len(table) == 1 and table[0]["text"].startswith("[Caption: Fitted outflow velocities")
    assert "Prose goes on" not in table[0]["text"] and table[0]["section"] == "1 Results"


def test_a_section_path_names_the_numbered_headings_above_it():
    paths = section_paths(["Abstract", "7 Parameters", "7.6 Reionization", "7.6.2 Recombination history",
                           "II. METHODS", "II.A Ordered phase", "A Installation", "A.1 Pip", "References"])
    assert paths["7.6.2 Recombination history"] == "7 Parameters › 7.6 Reionization › 7.6.2 Recombination history"
    assert paths["II.A Ordered phase"] == "II. METHODS › II.A Ordered phase"
    assert paths["A.1 Pip"] == "A Installation › A.1 Pip"
    assert paths["Abstract"] == "Abstract" and paths["References"] == "References"


def test_a_pdf_figure_caption_is_a_chunk_of_its_own(run_astro, workspace, tmp_path):
    env = base_env(tmp_path)
    shutil.copyfile(PAPERS / "smear_2019ApJS_ms.pdf", workspace / "smear.pdf")
    added = run_astro(["library", "add", "./smear.pdf", "--title", "Kepler smear", "--year", "2019"], env, timeout=300)
    assert added.returncode == 0, added.stderr
    hits = json.loads(run_astro(["library", "search", "Gaia colour-magnitude diagram of the Smear Campaign stars",
                                 "--json", "-k", "3"], env).stdout)["hits"]
    caption = [hit for hit in hits if "Gaia colour-magnitude diagram of the Smear" in hit["text"]]
    assert caption and caption[0]["text"].startswith("Figure 1. Gaia colour-magnitude diagram")
