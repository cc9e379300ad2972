"""The acknowledgements catalogue teams and archives ask for, and those a session's queries owe.

Besides a paper to cite, Gaia (DPAC), 2MASS, IRSA, NED, VizieR and SIMBAD each ask a publication
using their data to carry a sentence of acknowledgement. A query's provenance (stored with its
tool result) names the service and the catalogues; `session_credits` turns a session's queries
into those sentences, each once, for `/acknowledgements` and the end of the session's BibTeX.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from astro_cli.app import AppContext
    from astro_cli.slash import SlashContext

# Each team's acknowledgement, in the wording it publishes for papers that use its data.
ACKNOWLEDGEMENTS: dict[str, tuple[str, str]] = {
    "gaia": ("Gaia", "This work has made use of data from the European Space Agency (ESA) mission Gaia "
             "(https://www.cosmos.esa.int/gaia), processed by the Gaia Data Processing and Analysis Consortium "
             "(DPAC, https://www.cosmos.esa.int/web/gaia/dpac/consortium). Funding for the DPAC has been provided "
             "by national institutions, in particular the institutions participating in the Gaia Multilateral "
             "Agreement."),
    "2mass": ("2MASS", "This publication makes use of data products from the Two Micron All Sky Survey, which is "
              "a joint project of the University of Massachusetts and the Infrared Processing and Analysis "
              "Center/California Institute of Technology, funded by the National Aeronautics and Space "
              "Administration and the National Science Foundation."),
    "irsa": ("IRSA", "This research has made use of the NASA/IPAC Infrared Science Archive, which is funded by "
             "the National Aeronautics and Space Administration and operated by the California Institute of "
             "Technology."),
    "ned": ("NED", "This research has made use of the NASA/IPAC Extragalactic Database (NED), which is funded by "
            "the National Aeronautics and Space Administration and operated by the California Institute of "
            "Technology."),
    "vizier": ("VizieR", "This research has made use of the VizieR catalogue access tool, CDS, Strasbourg, France "
               "(DOI: 10.26093/cds/vizier)."),
    "simbad": ("SIMBAD", "This research has made use of the SIMBAD database, operated at CDS, Strasbourg, France."),
}


@dataclass(frozen=True)
class Credit:
    name: str
    text: str


def credits_for(service: str, catalogues: list[str], settings: Any) -> list[Credit]:
    """The acknowledgements one query owes: its catalogues' (by name), then its service's."""
    from astro_cli.catalog.errors import CatalogError
    from astro_cli.catalog.services import CATALOGUES, services

    keys = [c.credit for c in CATALOGUES if c.name in catalogues and c.credit]
    try:
        known = services(settings).get(service)
    except CatalogError:  # a broken config entry: the catalogues still owe theirs
        known = None
    if known is not None and known.credit:
        keys.append(known.credit)
    return [Credit(*ACKNOWLEDGEMENTS[k]) for k in dict.fromkeys(keys) if k in ACKNOWLEDGEMENTS]


def session_credits(app: AppContext, session_id: str) -> list[Credit]:
    """Every acknowledgement the session's successful catalogue queries owe, each once, in order."""
    found: dict[str, Credit] = {}
    for stored in app.sessions.messages(session_id):
        data = stored.meta.get("data") if stored.message.get("role") == "tool" else None
        meta = data.get("catalog") if isinstance(data, dict) else None
        if not isinstance(meta, dict) or not stored.meta.get("ok", True):
            continue
        names = [n.strip() for n in str(meta.get("catalog") or "").split(",") if n.strip()]
        for credit in credits_for(str(meta.get("service") or ""), names, app.settings):
            found.setdefault(credit.name, credit)
    return list(found.values())


def bibtex_comment(credits: list[Credit]) -> str:
    """The acknowledgements as BibTeX comment lines (text outside entries, which BibTeX skips)."""
    if not credits:
        return ""
    lines = ["% Acknowledgements the catalogues and archives used in this session ask for:"]
    for credit in credits:
        lines.extend(textwrap.wrap(f"{credit.name}: {credit.text}", 98, initial_indent="% ",
                                   subsequent_indent="%   ", break_on_hyphens=False, break_long_words=False))
    return "\n".join(lines) + "\n"


def slash_acknowledgements(ctx: SlashContext, args: str) -> None:
    """/acknowledgements: the sentences this session's catalogue queries owe, ready to paste."""
    from rich.text import Text

    from astro_cli.security.visible import one_line, visible

    if ctx.session is None:
        return
    credits = session_credits(ctx.app, ctx.session.session_id)
    if not credits:
        ctx.console.print(Text("No catalogue query of this session asks for an acknowledgement.", style="yellow"))
        return
    for credit in credits:
        ctx.console.print(Text(f"{one_line(credit.name, 200)}: {visible(credit.text)}"), soft_wrap=True)
