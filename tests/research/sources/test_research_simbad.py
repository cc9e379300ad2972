"""query_target's work: SIMBAD through pyvo's TAP client, against a TAP endpoint on 127.0.0.1.

No real SIMBAD TAP answer to an object query was ever recorded (the fixtures hold only TAP_SCHEMA
metadata and legacy sim-script answers), so the TAP answers here are BUILT with astropy's own
tooling: an astropy Table with the columns astro's ADQL asks for, written by astropy.io.votable
(tests/research_server.py: simbad_votable). Identifiers and coordinates in them come from the
recorded sim-script answers for M 31, M 51 and the field around M 31; the other values (type,
magnitudes, velocity, references) are typed in for the test and are not SIMBAD's.
"""

from __future__ import annotations

from urllib.parse import parse_qs

import pytest

from astro_cli.research.sources.http import ServiceError
from astro_cli.research.sources.simbad import NotFound, describe_lookup, look_up, parse_position, parse_radius
from astro_cli.research.sources.web import Web
from tests import research_server
from tests.research_server import simbad_error_votable

research, research_app = research_server.research, research_server.research_app  # fixtures


def _adql(research) -> str:
    return parse_qs(research.hits("/simbad/sim-tap/sync")[-1].body.decode())["QUERY"][0]


def test_an_object_by_name_gives_its_facts(research_app, research):
    found = look_up(Web.of(research_app), "m31")
    obj = found["object"]
    assert obj["main_id"] == "M  31"
    assert obj["ra"] == pytest.approx(10.6847083, abs=1e-6) and obj["dec"] == pytest.approx(41.26875, abs=1e-6)
    assert obj["otype"] == "G" and obj["magnitudes"] == {"B": 4.36, "V": 3.44}
    assert obj["sp_type"] is None and obj["nbref"] == 1234
    lines, sources = describe_lookup(found)
    text = "\n".join(lines)
    assert "ICRS coordinates: RA 10.684708 deg, Dec +41.268750 deg (00 42 44.33 +41 16 07.5)" in text
    assert "radial velocity -300 km/s (z = -0.001)" in text
    assert "references in SIMBAD: 1234" in text
    assert [s.as_dict() for s in sources] == [{  # the tool's data: an object, no paper ids, no authors
        "id": "SIMBAD:M  31", "title": "SIMBAD entry for M  31", "bibcode": None, "arxiv_id": None, "doi": None,
        "year": None, "authors": [], "url": "https://simbad.cds.unistra.fr/simbad/sim-id?Ident=M++31"}]
    adql = _adql(research)
    assert "WHERE ident.id = 'm31'" in adql and 'allfluxes."V"' in adql and "basic.nbref" in adql


def test_the_request_goes_to_the_configured_tap_url_with_astros_user_agent(research_app, research):
    look_up(Web.of(research_app), "M 51")
    request = research.hits("/simbad/sim-tap/sync")[0]
    assert "astro/" in request.headers["User-Agent"]
    form = parse_qs(request.body.decode())
    assert form["LANG"] == ["ADQL"] and form["REQUEST"] == ["doQuery"]
    assert len(research.requests) == 1  # one request per lookup: no capabilities or metadata queries


def test_an_unknown_object_is_a_clear_not_found(research_app):
    with pytest.raises(NotFound, match=r"^SIMBAD does not know an object named 'Planet Nine'; check the spelling"):
        look_up(Web.of(research_app), "Planet Nine")


def test_a_quote_in_a_name_is_escaped(research_app, research):
    with pytest.raises(NotFound):
        look_up(Web.of(research_app), "Barnard's star")
    assert "ident.id = 'Barnard''s star'" in _adql(research)


def test_coordinates_make_a_cone_search_nearest_first(research_app, research):
    found = look_up(Web.of(research_app), "00:42:44.33 +41:16:07.5", radius="1arcmin")
    cone = found["cone"]
    assert found["object"] is None
    assert cone["radius_deg"] == pytest.approx(1 / 60)
    names = [o["main_id"] for o in cone["objects"]]
    assert names[0] == "M  31" and len(names) == 5
    distances = [o["distance_arcsec"] for o in cone["objects"]]
    assert distances == sorted(distances)
    adql = _adql(research)
    assert "CIRCLE('ICRS', 10.68470833, 41.26875000, 0.01666667)" in adql and "ORDER BY dist_arcsec" in adql
    lines, sources = describe_lookup(found)
    assert lines[0].startswith("5 objects within 1 arcmin of RA 10.684708, Dec +41.268750")
    assert len(sources) == 5


def test_a_name_with_a_radius_also_lists_the_neighbours(research_app, research):
    found = look_up(Web.of(research_app), "M 31", radius="30arcsec")
    assert found["object"]["main_id"] == "M  31"
    assert [o["main_id"] for o in found["cone"]["objects"]][0] == "M  31"
    lines, sources = describe_lookup(found)
    assert sum(1 for s in sources if s.ref.id == "SIMBAD:M  31") == 1


def test_an_empty_cone_says_so(research_app):
    found = look_up(Web.of(research_app), "120.0 -45.0", radius="10arcsec")
    lines, _ = describe_lookup(found)
    assert lines == ["SIMBAD lists no object within 0.167 arcmin of RA 120.000000, Dec -45.000000."]


def test_service_failures_are_sentences(research_app, research):
    research.fail("/simbad/", 500)
    with pytest.raises(ServiceError, match=r"^SIMBAD answered HTTP 500 for the query; try again later\.$"):
        look_up(Web.of(research_app), "M 31")
    research_app.settings.set("http.timeout", 0.3, "test")
    research.fail("/simbad/", 200, delay=1.0)
    with pytest.raises(ServiceError, match=r"^SIMBAD did not answer within 0.3 s"):
        look_up(Web.of(research_app), "M 31")
    research.fail("/simbad/", 200, body=simbad_error_votable("Incorrect ADQL query: unknown column"))
    with pytest.raises(ServiceError, match=r"^SIMBAD rejected the query: Incorrect ADQL query: unknown column\.$"):
        look_up(Web.of(research_app), "M 31")
    research_app.settings.set("simbad_url", "http://127.0.0.1:9/simbad/sim-tap", "test")
    with pytest.raises(ServiceError, match=r"^Could not reach SIMBAD at http://127.0.0.1:9/simbad/sim-tap"):
        look_up(Web.of(research_app), "M 31")


@pytest.mark.parametrize("text, expected", [
    ("10.6847 41.2690", (10.6847, 41.269)),
    ("10.6847, -41.2690", (10.6847, -41.269)),
    ("00h42m44.3s +41d16m09s", (10.68458, 41.26917)),
    ("M 31", None), ("HD 209458", None), ("NGC 224", None), ("Sgr A*", None),
])
def test_positions_and_names_are_told_apart(text, expected):
    result = parse_position(text)
    if expected is None:
        assert result is None
    else:
        assert result == pytest.approx(expected, abs=1e-4)


def test_bad_positions_and_radii_are_sentences():
    with pytest.raises(ServiceError, match="outside the sky"):
        parse_position("400 95")
    with pytest.raises(ServiceError, match="'two miles' is not a radius"):
        parse_radius("two miles")
    with pytest.raises(ServiceError, match="at most 5 degrees"):
        parse_radius("10deg")
    assert parse_radius("3") == pytest.approx(0.05)
    assert parse_radius("30arcsec") == pytest.approx(30 / 3600)
