"""Issue 45: text readers behind one seam. A paper as an OCR tool writes it (the CAMELS paper in
Markdown, tests/fixtures/markdown) is added, indexed and searched through the real `astro`; a plugin
adds a reader through the same call the built-in readers use."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.conftest import base_env
from tests.paths import FIXTURES_DIR
from tests.prompt.test_prompt_switches_e2e import make_plugin_site, with_site

CAMELS = FIXTURES_DIR / "markdown" / "camels_2010.00619v2.md"
TITLE = "THE CAMELS PROJECT: COSMOLOGY AND ASTROPHYSICS WITH MACHINE LEARNING SIMULATIONS"


def _paper(run_astro, env, paper_id: str) -> dict:
    listed = run_astro(["library", "list", "--json"], env)
    assert listed.returncode == 0, listed.stderr
    return {row["id"]: row for row in json.loads(listed.stdout)}[paper_id]


def test_an_ocr_markdown_paper_is_added_indexed_by_section_and_its_tables_found(run_astro, workspace: Path):
    env = base_env(workspace.parent)
    shutil.copyfile(CAMELS, workspace / "camels.md")
    added = run_astro(["library", "add", "./camels.md", "--year", "2021"], env)
    assert added.returncode == 0, added.stderr
    assert added.stdout.startswith(f"villaescusanavarro2021camels added from ./camels.md: {TITLE} "
                                   "(Francisco Villaescusa-Navarro et al., 2021)")
    assert "chunks from the Markdown" in added.stdout and "warning" not in added.stderr
    row = _paper(run_astro, env, "villaescusanavarro2021camels")
    assert row["parsed_from"] == "markdown" and row["source_path"] == "papers/villaescusanavarro2021camels.md"
    assert row["authors"][:3] == ["Francisco Villaescusa-Navarro", "Daniel Anglés-Alcázar", "Shy Genel"]
    assert (workspace / "papers" / "villaescusanavarro2021camels.md").read_bytes() == CAMELS.read_bytes()

    found = run_astro(["library", "search", "Galactic winds energy per unit SFR kinetic mode BH feedback",
                       "--json"], env)
    assert found.returncode == 0, found.stderr
    table = json.loads(found.stdout)["hits"][0]
    # Table 1 is one chunk of its section: its caption (which follows it in the file) first, then its rows as
    # cells, the OCR's <br> gone; the footnote the table was glued to stays in the prose.
    assert table["section"] == "3.2. SIMBA"
    assert table["text"].startswith("Table 1 We vary two cosmological")
    assert ("IllustrisTNG | Galactic winds: energy per unit SFR | Galactic winds: wind speed | Kinetic mode BH "
            "feedback: energy per unit BH accretion rate") in table["text"]
    assert "<br>" not in table["text"] and "GIZMO" not in table["text"]


def test_parse_paper_tells_the_model_it_read_the_markdown_and_how_to_read_it(run_astro, fake, astro_env,
                                                                             workspace: Path):
    shutil.copyfile(CAMELS, workspace / "camels.md")
    added = run_astro(["library", "add", "./camels.md", "--no-parse"], astro_env)
    assert added.returncode == 0, added.stderr
    fake.add(
        {"tool_calls": [{"name": "parse_paper", "arguments": {"id": "villaescusanavarrocamels"}}]},
        {"tool_calls": [{"name": "get_paper_content",
                         "arguments": {"id": "villaescusanavarrocamels", "section": "3.3.2. $1 P$ set"}}]},
        {"text": "Done."},
    )
    result = run_astro(["run", "index the CAMELS paper"], astro_env)
    assert result.returncode == 0, result.stderr
    bodies = fake.bodies()
    told = json.dumps(bodies[1]["messages"][-2], ensure_ascii=False)  # the tool result (the environment is last)
    assert "indexed from the Markdown" in told and "$...$ is LaTeX math" in told, told
    assert "2. PROJECT GOALS" in told and "3.3.2. $1 P$ set" in told  # the outline is the file's headings
    section = json.dumps(bodies[2]["messages"][-2], ensure_ascii=False)
    assert "1P stands for 1-parameter. This set contains 61 simulations" in section, section


PLAIN_READER = '''
from astro_cli.extensions import TextReading
from astro_cli.research.library.parse import split_text
from astro_cli.research.records import Chunk


class PlainReader:
    name = "plaintext"
    label = "the plain text"
    kinds = "plain text (.txt)"
    slot = "source"
    hint = None

    def claims(self, path, head):
        return path.name.endswith(".txt")

    def metadata(self, path):
        return {"title": path.read_text().splitlines()[0]}

    def store(self, path, papers, stem):
        from astro_cli.security import writer
        from astro_cli.security.writer import Place

        return writer.copy_into(path, Place(papers, (stem + ".txt",)))

    def read(self, path, size):
        text = path.read_text()
        return TextReading([Chunk("Text", None, i, piece, "body") for i, piece in enumerate(split_text(text, size))],
                           [("Text", None)])


def register(api):
    api.add_text_reader(PlainReader())
'''


def test_a_plugin_adds_a_text_reader_through_the_seam_the_built_in_ones_use(run_astro, workspace: Path,
                                                                           tmp_path: Path):
    site = make_plugin_site(tmp_path / "site", "astro_plain", PLAIN_READER, {"plain": "astro_plain:register"})
    env = with_site(base_env(workspace.parent), site)
    (workspace / "seeing.txt").write_text("Seeing at the dome\n\n" + "The median seeing was 0.7 arcsec. " * 80)
    added = run_astro(["library", "add", "./seeing.txt", "--author", "Ann Observer", "--year", "2024"], env)
    assert added.returncode == 0, added.stderr
    assert "added from ./seeing.txt: Seeing at the dome" in added.stdout
    assert "chunks from the plain text" in added.stdout
    row = _paper(run_astro, env, "observer2024seeing")
    assert row["parsed_from"] == "plaintext" and row["source_path"] == "papers/observer2024seeing.txt"
    shown = run_astro(["hooks", "list"], env)
    assert "plugin plain (astro_plain:register): loaded; text reader plaintext" in shown.stdout
    # Without the plugin the same file is one sentence naming what astro reads, and nothing is stored.
    (workspace / "other.txt").write_text("Other notes\n")
    refused = run_astro(["library", "add", "./other.txt"], base_env(workspace.parent))
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert "other.txt is none of the paper files astro reads" in refused.stderr and "Markdown (.md)" in refused.stderr


def test_a_long_table_is_cut_at_rows_each_piece_with_its_caption_and_header(cli, workspace: Path):
    rows = "".join(f"| star {i} | {5000 + i} K | {0.5 + i / 1000:.3f} |\n" for i in range(900))
    (workspace / "stars.md").write_text("# A catalogue of cool stars\n\nAnn Observer, Bo Lee\n\n## 2. Data\n\n"
                                        + "We list the stars we observed at the dome. " * 60 + "\n\n"
                                        "Table 2. Effective temperatures and masses.\n"
                                        "| Star | $T_{\\rm eff}$ | Mass |\n| :-- | --: | --: |\n" + rows)
    added = cli(["library", "add", "./stars.md", "--year", "2024"])
    assert added.exit_code == 0, added.stderr
    assert "observer2024catalogue added from ./stars.md: A catalogue of cool stars (Ann Observer et al., 2024)" \
        in added.stdout
    hits = json.loads(cli(["library", "search", "star 812", "--json"]).stdout)["hits"]
    piece = next(h["text"] for h in hits if "star 812 |" in h["text"])
    assert piece.startswith("Table 2. Effective temperatures and masses.\nStar | $T_{\\rm eff}$ | Mass\n")
    assert "star 812 | 5812 K | 1.312" in piece and len(piece) <= 8000 and "star 0 |" not in piece


def test_a_markdown_beyond_the_limit_is_indexed_up_to_it_and_says_so(cli, workspace: Path):
    paragraph = "The median seeing at the dome was 0.7 arcsec on photometric nights. " * 20
    (workspace / "huge.md").write_text("# Seeing\n\n" + (paragraph + "\n\n") * 1800)  # about 2.5 MB
    added = cli(["library", "add", "./huge.md", "--author", "Ann Observer", "--year", "2024"])
    assert added.exit_code == 0, added.stderr
    assert "note: the Markdown is beyond astro's limits (it is larger than 2 MB); only what was read is indexed." \
        in added.stderr
    assert "chunks from the Markdown" in added.stdout


def test_ids_come_from_the_front_matter_never_from_the_references(cli, workspace: Path):
    body = "\n\n## 1. Introduction\n\n" + "We measured the seeing at the dome every night. " * 50 + \
        "\n\n## References\n\nSmith, J. 2019, MNRAS, 488, 4440, [arXiv:1903.00007], doi:10.1093/mnras/stz1960\n"
    (workspace / "stamped.md").write_text("# Seeing at the dome\n\nAnn Observer, Bo Lee\n\n"
                                          "arXiv:2301.01234v1 [astro-ph.IM] 3 Jan 2023" + body)
    (workspace / "plain.md").write_text("# Wind at the dome\n\nAnn Observer, Bo Lee" + body)
    stamped = cli(["library", "add", "./stamped.md"])
    assert stamped.exit_code == 0, stamped.stderr
    assert stamped.stdout.startswith("2301.01234 added from ./stamped.md: Seeing at the dome (Ann Observer et al., 2023)")
    plain = cli(["library", "add", "./plain.md", "--year", "2024"])
    assert plain.exit_code == 0, plain.stderr
    rows = {row["id"]: row for row in json.loads(cli(["library", "list", "--json"]).stdout)}
    assert rows["2301.01234"]["doi"] is None  # the reference's DOI is not this paper's
    assert rows["observer2024wind"]["arxiv_id"] is None and rows["observer2024wind"]["doi"] is None
