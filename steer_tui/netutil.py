"""Socket and address helpers shared by the client and the gateway: loopback tests, TCP_NODELAY,
and hiding the credentials a URL or an error text may carry."""

from __future__ import annotations

import ipaddress
import re
import socket
from urllib.parse import unquote, urlsplit


def is_loopback(host: str) -> bool:
    """`localhost` or a loopback IP address (IPv4 127/8, IPv6 ::1, bracketed or not)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_loopback_url(url: str) -> bool:
    return is_loopback(urlsplit(url).hostname or "")


def set_nodelay(stream) -> None:
    """Turn Nagle off on a transport or stream writer: requests, cancels and events are small
    writes the peer is waiting on. asyncio does this for TCP transports already; saying it here
    keeps it true whatever the transport or loop."""
    sock = stream.get_extra_info("socket") if stream is not None else None
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass


# Query parameters whose values are credentials (`?key=...`, `?api_key=...`, `&token=...`).
_SECRET_PARAMS = r"(?:api[_-]?key|key|token|access[_-]?token|secret|password|passwd|pwd|sig|signature|auth)"
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s?#]+@")  # up to the authority's last @
_QUERY_SECRET = re.compile(r"(?i)([?&;]" + _SECRET_PARAMS + r"=)[^&;#\s\"']+")
_BEARER = re.compile(r"(?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=:-]{4,}")
REDACTED = "***"


def redact(text: str) -> str:
    """`text` with URL userinfo, credential query parameters and Authorization values hidden:
    what the gateway shows (ready line, health, events, logs, forwarded errors) passes through here."""
    text = _USERINFO.sub(r"\1" + REDACTED + "@", text)
    text = _QUERY_SECRET.sub(r"\1" + REDACTED, text)
    return _BEARER.sub(r"\1\2" + REDACTED, text)


def url_secrets(url: str) -> list[str]:
    """The credentials written into `url` (user, password, credential query values), raw and
    percent-decoded, longest first, so text echoing any of them can be scrubbed."""
    parts = urlsplit(url)
    found = []
    if "@" in parts.netloc:
        userinfo = parts.netloc.rpartition("@")[0]
        found += [userinfo, *userinfo.split(":", 1)]
    for pair in parts.query.replace(";", "&").split("&"):
        name, sep, value = pair.partition("=")
        if sep and value and re.fullmatch(_SECRET_PARAMS, name, re.IGNORECASE):
            found.append(value)
    out = set()
    for value in found:
        if value:
            out.update({value, unquote(value)})
    return sorted((v for v in out if v), key=len, reverse=True)
