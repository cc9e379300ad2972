"""Issue 15: `astro library add ./paper.pdf | ./source.tar.gz | ./main.tex` with the real command,
metadata read from the files (the fixture papers) or given by flags."""

from __future__ import annotations

import io
import json
import shutil
import tarfile

from tests.library_support import EMCEE_TEX, MURRAY_PDF


def _papers(cli):
    return {row["id"]: row for row in json.loads(cli(["library", "list", "--json"]).stdout)}


def test_a_local_pdf_is_copied_read_and_indexed(cli, workspace):
    mine = workspace / "downloads" / "murray.pdf"
    mine.parent.mkdir()
    shutil.copyfile(MURRAY_PDF, mine)
    result = cli(["library", "add", "./downloads/murray.pdf"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("1111.2011 added from ./downloads/murray.pdf: Quantum Criticality for Extended "
                                    "Nodes on a Bethe Lattice in the Large Connectivity Limit (James M. Murray et al., 2012)")
    assert "Indexed 29 chunks from the PDF." in result.stdout or "chunks from the PDF" in result.stdout
    row = _papers(cli)["1111.2011"]
    assert row["authors"] == ["James M. Murray", "Adrian Del Maestro", "Zlatko Tešanović"]
    assert row["arxiv_id"] == "1111.2011" and row["pdf_path"] == "papers/1111.2011.pdf" and row["parsed_at"]
    assert mine.read_bytes() == MURRAY_PDF.read_bytes()  # the user's file stays where it was
    hits = json.loads(cli(["library", "search", "Tesanovic", "--json"]).stdout)["hits"]
    assert hits and hits[0]["source"] == "1111.2011"


def test_a_tex_with_flags_and_a_tarball(cli, workspace):
    project = workspace / "thesis"
    project.mkdir()
    shutil.copyfile(EMCEE_TEX, project / "main.tex")
    (project / "figure.png").write_bytes(b"\x89PNG not copied")
    result = cli(["library", "add", "./thesis/main.tex", "--year", "2013", "--doi", "10.1086/670067"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("10.1086/670067 added from ./thesis/main.tex: emcee: The MCMC Hammer "
                                    "(Daniel Foreman-Mackey et al., 2013)")
    row = _papers(cli)["10.1086/670067"]
    assert row["authors"] == ["Daniel Foreman-Mackey", "David W. Hogg", "Dustin Lang", "Jonathan Goodman"]
    assert row["parsed_from"] == "latex" and row["source_path"].startswith("papers/")
    stored = workspace / row["source_path"]
    assert (stored / "main.tex").is_file() and not (stored / "figure.png").exists()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(EMCEE_TEX, arcname="ms.tex")
    (workspace / "eprint.tar.gz").write_bytes(buffer.getvalue())
    tarred = cli(["library", "add", "eprint.tar.gz", "--title", "The MCMC Hammer, again", "--author", "D. Foreman-Mackey"])
    assert tarred.exit_code == 0, tarred.stderr
    assert "foremanmackeymcmc added from eprint.tar.gz: The MCMC Hammer, again (D. Foreman-Mackey)" in tarred.stdout
    assert _papers(cli)["foremanmackeymcmc"]["parsed_from"] == "latex"


def test_bad_local_files_are_one_sentence(cli, workspace):
    missing = cli(["library", "add", "./nowhere.pdf"])
    assert missing.exit_code == 1 and "there is no file nowhere.pdf." in missing.stderr
    (workspace / "notes.txt").write_text("just notes")
    other = cli(["library", "add", "./notes.txt"])
    assert other.exit_code == 1 and ("notes.txt is none of the paper files astro reads (a PDF, a LaTeX source "
                                     "(.tex, .tar.gz), Markdown (.md))") in other.stderr
    (workspace / "broken.pdf").write_bytes(b"%PDF-1.5\n" + b"\x00junk" * 50)
    broken = cli(["library", "add", "./broken.pdf"])
    assert broken.exit_code == 1 and "could not be read as a PDF" in broken.stderr
    assert "Traceback" not in missing.stderr + other.stderr + broken.stderr
    flags = cli(["library", "add", "1001.0012", "--title", "x"])
    assert flags.exit_code == 2 and "describe a local file" in flags.stderr
