"""Socket and address helpers shared by the client and the gateway: loopback tests, TCP_NODELAY."""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit


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
