"""Send a table of the workspace to TOPCAT, Aladin or any SAMP client (pyvo.samp).

Researchers look at a catalogue result in TOPCAT; SAMP (IVOA) is how desktop tools hand tables to
each other. astro registers as a client of the running hub (its lockfile: SAMP_HUB or ~/.samp),
sends `table.load.votable` or `table.load.fits` with the file's URL, and disconnects. The file
stays where it is: nothing is written, and only VOTable and FITS go (the two table MTypes clients
accept); a result in ECSV is saved again with save_as NAME.vot first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from astro_cli.catalog.errors import CatalogError
from astro_cli.catalog.formats import warnings_to_log

if TYPE_CHECKING:
    from astro_cli.app import AppContext

MTYPES = {".vot": "table.load.votable", ".xml": "table.load.votable", ".fits": "table.load.fits"}
CLIENT_NAME = "astro"


def _names(client: Any) -> dict[str, str]:
    """The other clients of the hub, by id, with their samp.name."""
    found = {}
    for client_id in client.get_registered_clients():
        meta = client.get_metadata(client_id) or {}
        found[client_id] = str(meta.get("samp.name") or client_id)
    return found


def send_table(app: AppContext, raw: str, to: str | None, timeout: float) -> str:
    """Send the table at `raw` over SAMP (to the client named `to`, or to every one that takes it)."""
    from pathlib import PurePath

    suffix = PurePath(raw).suffix.lower()
    mtype = MTYPES.get(suffix)
    if mtype is None:
        raise CatalogError(f"SAMP carries VOTable and FITS tables, not '{suffix or raw}'; save the result as .vot or "
                           ".fits (save_as) and send that.")
    path = app.confinement.resolve(raw, must_exist=True)
    from pyvo.samp import SAMPIntegratedClient

    client = SAMPIntegratedClient(name=CLIENT_NAME, description="astro, a research assistant for astrophysicists")
    try:
        with warnings_to_log("connecting to the SAMP hub"):
            client.connect()
    except Exception as exc:  # noqa: BLE001 - no lockfile, a stale one, a hub that does not answer
        raise CatalogError(f"No SAMP hub answers ({type(exc).__name__}); start TOPCAT or Aladin (each runs one), "
                           "then send again.") from None
    message = {"samp.mtype": mtype, "samp.params": {"url": path.as_uri(), "name": path.name}}
    try:
        names = _names(client)
        if to:
            wanted = [cid for cid, name in names.items() if name.lower() == to.strip().lower()]
            if not wanted:
                others = ", ".join(sorted(n for n in names.values() if n != "Astropy SAMP Hub")) or "none"
                raise CatalogError(f"No SAMP client named '{to}' is connected (connected: {others}).")
            client.call_and_wait(wanted[0], message, str(max(1, int(timeout))))
            return f"Sent {raw} to {names[wanted[0]]}."
        recipients = client.notify_all(message) or []
    except CatalogError:
        raise
    except Exception as exc:  # noqa: BLE001 - the hub's and the client's failures arrive under many names
        raise CatalogError(f"The SAMP hub did not deliver {raw} ({type(exc).__name__}: "
                           f"{' '.join(str(exc).split())[:160]}).") from None
    finally:
        client.disconnect()
    if not recipients:
        raise CatalogError(f"No connected SAMP client accepts {mtype} (start TOPCAT or Aladin, or name one with --to).")
    return f"Sent {raw} to {', '.join(sorted(names.get(r, r) for r in recipients))}."
