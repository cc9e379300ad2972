"""Issue 41: what query_catalog may write, attacked through the real `astro` process.

The scripted model calls query_catalog against the TAP stand-ins on 127.0.0.1 (tests/catalog_server.py).
A project (or a sandboxed run_bash) can plant links in data/; astro's own writer must follow none of
them. A table the researcher made is never replaced without the researcher's permission: the result
goes to a fresh name beside it, and replace=true asks first.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.catalog_server import GAIA_STAR
from tests.helpers import tool_results

SHELL = "# the researcher's shell start-up\nexport PATH=$HOME/bin:$PATH\n"


@pytest.fixture
def env(astro_env, catalog):
    return {**astro_env, **catalog.env()}


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """A home outside the workspace whose start-up files a planted link points at."""
    home = tmp_path / "victim-home"
    home.mkdir()
    for name in (".bashrc", ".profile"):
        (home / name).write_text(SHELL, encoding="utf-8")
    return home


def call(**arguments):
    return {"tool_calls": [{"name": "query_catalog", "arguments": arguments}]}


def star(**more):
    return call(service="gaia", target=GAIA_STAR, radius="5arcsec", **more)


def test_links_planted_in_data_lead_nowhere(run_astro, fake, env, workspace, victim):
    data = workspace / "data"
    data.mkdir()
    (data / ".m67.ecsv.partial").symlink_to(victim / ".bashrc")  # the name the old writer wrote through
    (data / "m67.csv.meta.json").symlink_to(victim / ".profile")  # the CSV's side file
    fake.add(star(save_as="m67"), star(save_as="m67.csv"), {"text": "Both tables are in data/."})
    result = run_astro(["run", f"Gaia DR3 row of {GAIA_STAR}, as ECSV and as CSV"], env)
    assert result.returncode == 0, result.stderr
    assert (victim / ".bashrc").read_text(encoding="utf-8") == SHELL
    assert (victim / ".profile").read_text(encoding="utf-8") == SHELL
    from astropy.table import Table

    assert len(Table.read(data / "m67.ecsv")) == 1 and not (data / "m67.ecsv").is_symlink()
    told = tool_results(fake.bodies()[2])[-1]  # the side file's name is taken (by the link): a fresh one
    assert "written to data/m67_2.csv" in told and "m67.csv already exists" in told
    assert len(Table.read(data / "m67_2.csv")) == 1 and (data / "m67_2.csv.meta.json").is_file()
    assert (data / "m67.csv.meta.json").is_symlink()  # left as it was


def test_the_researchers_own_table_is_kept_and_the_result_goes_beside_it(run_astro, fake, env, workspace):
    data = workspace / "data"
    data.mkdir()
    members = data / "members.csv"
    members.write_text("source_id,note\n4583627001381815936,hand-checked member\n", encoding="utf-8")
    before = members.read_text(encoding="utf-8")
    fake.add(star(save_as="members.csv"), {"text": "Saved."})
    result = run_astro(["run", "Save the Gaia row as members.csv"], env)
    assert result.returncode == 0, result.stderr
    assert members.read_text(encoding="utf-8") == before
    told = tool_results(fake.bodies()[1])[0]
    assert "written to data/members_2.csv" in told
    assert "members.csv already exists and astro did not write it in this session" in told
    assert "replace=true" in told
    assert (data / "members_2.csv").is_file() and (data / "members_2.csv.meta.json").is_file()


def test_replacing_the_researchers_table_needs_permission(run_astro, fake, env, workspace, catalog):
    data = workspace / "data"
    data.mkdir()
    members = data / "members.csv"
    members.write_text("source_id\n1\n", encoding="utf-8")
    fake.add(star(save_as="members.csv", replace=True), {"text": "I may not replace it."})
    result = run_astro(["run", "Replace members.csv with the Gaia row"], env)
    assert result.returncode == 0, result.stderr
    assert "query_catalog needs permission and none was given" in tool_results(fake.bodies()[1])[0]
    assert members.read_text(encoding="utf-8") == "source_id\n1\n" and catalog.queries("gaia") == []
    fake.add(star(save_as="members.csv", replace=True), {"text": "Replaced."})
    result = run_astro(["run", "--allow", "query_catalog", "Replace members.csv with the Gaia row"], env)
    assert result.returncode == 0, result.stderr
    from astropy.table import Table

    assert "parallax" in Table.read(members).colnames and not (data / "members_2.csv").exists()


def test_a_query_run_again_in_the_session_replaces_its_own_table(run_astro, fake, env, workspace):
    fake.add(star(save_as="m67"), star(save_as="m67"), {"text": "Updated."})
    result = run_astro(["run", "Query the star, then again"], env)
    assert result.returncode == 0, result.stderr
    assert "written to data/m67.ecsv" in tool_results(fake.bodies()[2])[-1]
    assert sorted(p.name for p in (workspace / "data").iterdir()) == ["m67.ecsv"]


def test_astro_catalog_keeps_an_existing_file_unless_told_to_replace_it(cli, fake, env, workspace):
    data = workspace / "data"
    data.mkdir()
    (data / "star.fits").write_bytes(b"the researcher's own FITS file")
    kept = cli(["catalog", "cone", "gaia", GAIA_STAR, "--radius", "5arcsec", "--save-as", "star.fits"], env=env)
    assert kept.exit_code == 0, kept.stderr
    assert "written to data/star_2.fits" in kept.stdout and "--replace" in kept.stdout
    assert (data / "star.fits").read_bytes() == b"the researcher's own FITS file"
    replaced = cli(["catalog", "cone", "gaia", GAIA_STAR, "--radius", "5arcsec", "--save-as", "star.fits",
                    "--replace"], env=env)
    assert replaced.exit_code == 0, replaced.stderr
    assert "written to data/star.fits" in replaced.stdout
    from astropy.table import Table

    assert len(Table.read(data / "star.fits")) == 1
