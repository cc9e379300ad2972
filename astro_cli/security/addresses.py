"""Whether a URL leads inside: to this machine or the local network (loopback, private, link-local).

A URL astro follows because a service's answer named it (a DataLink product, a redirect) must not
turn astro into a client of what only this machine or its network can reach: a database's HTTP
port, a cloud's metadata service at 169.254.169.254, a lab's intranet. The host is resolved, and
every address it resolves to is checked, since a public-looking name can point inside.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
from urllib.parse import urlsplit

log = logging.getLogger(__name__)


def _inner(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    mapped = getattr(address, "ipv4_mapped", None)
    if mapped is not None:
        address = mapped
    return (address.is_loopback or address.is_private or address.is_link_local or address.is_reserved
            or address.is_multicast or address.is_unspecified)


def leads_inside(url: str) -> bool:
    """True when the URL's host is, or resolves to, an inner address (or cannot be read or resolved:
    what cannot be checked is treated as inside)."""
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return True
    if not host:
        return True
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return _inner(ipaddress.ip_address(host))
    except ValueError:
        pass
    try:
        found = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError) as exc:
        log.debug("addresses: %s does not resolve: %s", host, exc)
        return True
    return any(_inner(ipaddress.ip_address(str(entry[4][0]).split("%", 1)[0])) for entry in found)
