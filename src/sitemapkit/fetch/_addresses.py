"""Which network addresses a fetch may reach: the guard against server-side request forgery.

A sitemap index, a redirect or a robots.txt ``Sitemap:`` line can point anywhere, including at addresses only
the machine running sitemapkit can reach: ``http://169.254.169.254/`` (cloud metadata), ``http://localhost:6379/``,
``http://[fd00::1]/``. :class:`AddressPolicy` decides, from the host of a URL or from the address a name resolved
to, whether a request may go there:

- public (globally routable) addresses are always allowed;
- special addresses (loopback, private, link-local, multicast, unspecified, reserved and other special-purpose
  ranges) are refused, unless the policy allows them all (``allow_private=True``, the CLI's
  ``--allow-private-addresses``) or they are of the same class as a seed's own address: a walk that starts at
  ``http://127.0.0.1:8000/`` may go on to other loopback addresses, never to a link-local one.

Two moments are checked: :meth:`AddressPolicy.check_url` before any request is sent (a host that *is* a special
address, written literally, or ``localhost``), and :meth:`AddressPolicy.check_resolved` when a name has been
resolved, at connect time, because a DNS answer can change between a check and the connection. The policy knows
nothing about HTTP: the HTTP client, the crawler and any later server-side use call it the same way.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Iterable
from urllib.parse import urlsplit

__all__ = ["AddressPolicy", "IPAddress", "address_class", "host_address"]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

#: Class names, each with its article for messages.
_ARTICLE = {
    "unspecified": "an unspecified",
    "loopback": "a loopback",
    "link-local": "a link-local",
    "multicast": "a multicast",
    "private": "a private",
    "reserved": "a reserved",
    "special-purpose": "a special-purpose",
}

_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_LEGACY_IPV4 = re.compile(r"^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+)){0,3}$", re.IGNORECASE)
_LOCALHOST = re.compile(r"^(localhost|[^.]+\.localhost|localhost\.localdomain)$", re.IGNORECASE)


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address stands for (mapped, 6to4, NAT64), which is where packets really go."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def address_class(ip: IPAddress) -> str | None:
    """None for a public address, else the name of its special class ("loopback", "private", "link-local", ...)."""
    if isinstance(ip, ipaddress.IPv6Address):
        inner = _embedded_ipv4(ip)
        if inner is not None:
            return address_class(inner)
    if ip.is_unspecified:
        return "unspecified"
    if ip.is_loopback:
        return "loopback"
    if ip.is_link_local:
        return "link-local"
    if ip.is_multicast:
        return "multicast"
    if ip.is_private:
        return "private"
    if ip.is_reserved:
        return "reserved"
    if not ip.is_global:
        return "special-purpose"  # e.g. 100.64.0.0/10 (carrier-grade NAT)
    return None


def host_address(host: str) -> IPAddress | None:
    """The address a URL host names literally, or None for a name. Legacy IPv4 spellings that the system
    resolver maps onto an address (``2130706433``, ``127.1``, ``0x7f.0.0.1``) count as literal addresses."""
    h = host.strip().rstrip(".").strip("[]")
    if not h:
        return None
    try:
        return ipaddress.ip_address(h.split("%", 1)[0])  # an IPv6 zone (fe80::1%eth0) does not change the class
    except ValueError:
        pass
    if _LEGACY_IPV4.match(h):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(h))
        except OSError:
            return None
    return None


def _is_localhost(host: str) -> bool:
    return bool(_LOCALHOST.match(host.strip().rstrip(".")))


class AddressPolicy:
    """Decides whether a host or an address may be fetched (see the module docstring).

    Build it with :meth:`for_seeds` from the URLs a user asked for: each seed's own class is allowed (a literal
    address or ``localhost`` at once; a name when it is resolved, see :meth:`check_resolved`)."""

    def __init__(self, *, allow_private: bool = False, allowed_classes: Iterable[str] = (),
                 seed_hosts: Iterable[str] = ()) -> None:
        self.allow_private = allow_private
        self.allowed_classes: set[str] = set(allowed_classes)
        self.seed_hosts: frozenset[str] = frozenset(h.lower().rstrip(".") for h in seed_hosts if h)

    @classmethod
    def for_seeds(cls, seeds: Iterable[str], *, allow_private: bool = False) -> AddressPolicy:
        """A policy for a walk or crawl starting at ``seeds`` (URLs)."""
        classes: set[str] = set()
        hosts: list[str] = []
        for url in seeds:
            try:
                host = urlsplit(url).hostname or ""
            except ValueError:
                continue
            ip = host_address(host)
            if ip is not None:
                kind = address_class(ip)
                if kind is not None:
                    classes.add(kind)
            elif _is_localhost(host):
                classes.add("loopback")
            elif host:
                hosts.append(host)
        return cls(allow_private=allow_private, allowed_classes=classes, seed_hosts=hosts)

    @classmethod
    def allow_all(cls) -> AddressPolicy:
        """A policy that refuses nothing."""
        return cls(allow_private=True)

    def _refusal(self, what: str, kind: str) -> str:
        return f"refused: {what} is {_ARTICLE.get(kind, 'a ' + kind)} address; use --allow-private-addresses to allow"

    def check_address(self, ip: IPAddress, *, host: str | None = None) -> str | None:
        """None if ``ip`` may be reached, else why not (a message naming the address and its class)."""
        if self.allow_private:
            return None
        kind = address_class(ip)
        if kind is None or kind in self.allowed_classes:
            return None
        shown = str(ip) if host is None or host.strip("[]") == str(ip) else f"{host} resolves to {ip}, which"
        return self._refusal(shown, kind)

    def check_host(self, host: str) -> str | None:
        """Check a URL host before any request: literal addresses and ``localhost``. A name passes here and is
        checked on its resolved addresses (:meth:`check_resolved`)."""
        if self.allow_private:
            return None
        ip = host_address(host)
        if ip is not None:
            return self.check_address(ip, host=host)
        if _is_localhost(host) and "loopback" not in self.allowed_classes:
            return self._refusal(host.strip().rstrip("."), "loopback")
        return None

    def check_url(self, url: str) -> str | None:
        """:meth:`check_host` for the host of ``url`` (None for URLs without a host: the transport rejects them)."""
        try:
            host = urlsplit(url).hostname
        except ValueError:
            return None
        return self.check_host(host) if host else None

    def check_resolved(self, host: str, addresses: Iterable[IPAddress]) -> tuple[list[IPAddress], str | None]:
        """Filter the addresses ``host`` resolved to: returns those that may be reached and, when none may, why.

        A seed's own name is trusted whatever it resolves to, and the classes of its addresses become allowed
        (an intranet sitemap may list other intranet sitemaps)."""
        addrs = list(addresses)
        if self.allow_private:
            return addrs, None
        if host.lower().rstrip(".") in self.seed_hosts:
            for ip in addrs:
                kind = address_class(ip)
                if kind is not None:
                    self.allowed_classes.add(kind)
            return addrs, None
        kept: list[IPAddress] = []
        first_refusal: str | None = None
        for ip in addrs:
            why = self.check_address(ip, host=host)
            if why is None:
                kept.append(ip)
            elif first_refusal is None:
                first_refusal = why
        return kept, (first_refusal if not kept else None)
