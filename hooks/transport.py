"""One POST to a webhook endpoint, with the SSRF guard.

The host is resolved here, at delivery time, and every address it resolves to must be public
(`address_allowed`): not loopback (unless `SCRAPYARD_WEBHOOK_ALLOW_LOOPBACK`, for tests and
self-hosting), private, link-local (cloud metadata lives there), shared, multicast or reserved.
The connection then goes to the checked address itself, the name kept for the Host header and
TLS, so a second lookup (DNS rebinding) cannot send it elsewhere. Redirects are not followed.
At most `KEPT_BYTES` (1 KB) of the answer are read, and kept in the delivery log.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import socket
import threading
import time
from urllib.parse import urlsplit

import urllib3

USER_AGENT = "Scrapyard-Webhooks/1"
KEPT_BYTES = 1024  # of an answer's body, read and kept (hooks.models.Attempt.response_body)


@dataclasses.dataclass(frozen=True)
class Outcome:
    status_code: int | None  # None: no answer
    error: str  # "" when the endpoint answered; else what went wrong, for the delivery log
    retry: bool  # worth trying again later (timeouts, connection errors, 429 and 5xx)
    duration_ms: int
    response_body: str

    @property
    def delivered(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


class AddressRefused(Exception):
    """The URL's host is, or resolves to, an address webhooks may not reach."""


# IPv6 forms that carry an IPv4 address, which a gateway or the kernel may turn back into IPv4:
# NAT64 (64:ff9b::/96, RFC 6052) and the deprecated IPv4-compatible form (::/96, RFC 4291) keep
# it in the low 32 bits; 6to4 (2002::/16) right after the prefix (`sixtofour`); ::ffff:0:0/96
# is `ipv4_mapped`. Each is judged by the address it carries.
_LOW_32_BITS = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("::/96"))
# Local-use NAT64 (RFC 8215) places the IPv4 address by a prefix length we cannot know: refused.
_LOCAL_NAT64 = ipaddress.ip_network("64:ff9b:1::/48")


def embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries, if it is of a form that carries one."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if any(address in network for network in _LOW_32_BITS) and int(address) > 1:  # not :: nor ::1
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def address_allowed(address: ipaddress.IPv4Address | ipaddress.IPv6Address, allow_loopback: bool) -> bool:
    if isinstance(address, ipaddress.IPv6Address):
        if address in _LOCAL_NAT64:
            return False
        carried = embedded_ipv4(address)
        if carried is not None:  # ::ffff:10.0.0.1, ::10.0.0.1, 64:ff9b::a00:1, 2002:a00:1:: are 10.0.0.1
            address = carried
    if address.is_loopback:
        return allow_loopback
    return address.is_global and not address.is_multicast


@dataclasses.dataclass(frozen=True)
class Refused:
    """A host refused before any lookup, and whether it is this machine (`localhost`, a loopback
    address) rather than some other address that is not public: the caller words the refusal in
    the reader's language."""

    host: str
    this_machine: bool


def literal_refused(url: str, allow_loopback: bool) -> Refused | None:
    """The refusal of a URL whose host is a forbidden address or `localhost`, known before any lookup."""
    host = (urlsplit(url).hostname or "").rstrip(".").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return None if allow_loopback else Refused(host, this_machine=True)
    address = _literal_address(host)
    if address is None or address_allowed(address, allow_loopback):
        return None  # a name is checked when a delivery resolves it
    return Refused(host, this_machine=_loopback(address))


def _loopback(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    carried = embedded_ipv4(address) if isinstance(address, ipaddress.IPv6Address) else None
    return (carried or address).is_loopback


def _literal_address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address a host names by itself, read as the resolver reads it: `getaddrinfo` takes
    inet_aton's shorthands (`127.1`, `2130706433`, `0x7f000001`, `0177.0.0.1`) as IPv4
    addresses, which `ipaddress` calls names, so without this they passed registration."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    if not host or not all(char in "0123456789abcdefx." for char in host):
        return None  # a name such as `example.org` (and `inet_aton` reads trailing junk)
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None


def lookup(host: str, port: int) -> list[str]:
    """Every address the host resolves to (a name lookup, or the address itself)."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise OSError(f"cannot resolve {host}: {error.strerror}") from None
    return [info[4][0] for info in found]


def resolve(host: str, port: int, allow_loopback: bool) -> str:
    """The address to connect to: the first the host resolves to, once every one is allowed."""
    addresses = [ipaddress.ip_address(address.split("%")[0]) for address in lookup(host, port)]
    refused = [str(address) for address in addresses if not address_allowed(address, allow_loopback)]
    if refused or not addresses:
        raise AddressRefused(f"{host} resolves to {', '.join(refused) or 'nothing'}: not a public address")
    return str(addresses[0])


class _Deadline:
    """One deadline for a whole delivery, connection and answer. urllib3's timeouts bound each
    socket operation, so an endpoint answering a byte every few seconds could hold a worker
    for minutes; at the deadline this timer shuts the connection's socket down, which ends
    whatever read is waiting."""

    def __init__(self, seconds: float):
        self.expired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def __enter__(self) -> "_Deadline":
        self._timer.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._timer.cancel()

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            if self.expired:
                _shut(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                _shut(sock)

    def connection_class(self, base: type) -> type:
        deadline = self

        class Watched(base):  # type: ignore[misc, valid-type]
            def connect(self):
                super().connect()
                deadline.watch(self.sock)

        return Watched


def _shut(sock: socket.socket) -> None:
    try:
        socket.socket.shutdown(sock, socket.SHUT_RDWR)  # the plain socket's: TLS state is left alone
    except OSError:
        pass  # already closed


def post(url: str, body: bytes, headers: dict[str, str], *, timeout: float, allow_loopback: bool) -> Outcome:
    """POST `body`, the whole exchange (connecting, sending, the answer) within `timeout` seconds."""
    started = time.monotonic()

    def outcome(status_code: int | None, error: str, retry: bool, response_body: str = "") -> Outcome:
        return Outcome(status_code, error[:300], retry, int((time.monotonic() - started) * 1000), response_body)

    parts = urlsplit(url)
    https = parts.scheme == "https"
    port = parts.port or (443 if https else 80)
    try:
        address = resolve(parts.hostname or "", port, allow_loopback)
    except AddressRefused as error:
        return outcome(None, f"address_not_allowed: {error}", retry=False)
    except OSError as error:
        return outcome(None, f"dns_failed: {error}", retry=True)
    with _Deadline(max(0.001, timeout - (time.monotonic() - started))) as deadline:
        pool = _pool(https, address, port, parts.hostname or "", timeout)
        pool.ConnectionCls = deadline.connection_class(pool.ConnectionCls)
        try:
            sent = _send(pool, parts, body, headers, timeout, outcome)
        finally:
            pool.close()
    if deadline.expired and not sent.delivered:
        return outcome(None, f"timeout: no whole answer within {timeout:g} s", retry=True)
    return sent


def _send(pool, parts, body: bytes, headers: dict[str, str], timeout: float, outcome) -> Outcome:
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    host_header = _host_header(parts)
    try:
        response = pool.urlopen(
            "POST", path, body=body, redirect=False, retries=False, preload_content=False,
            headers={**headers, "Host": host_header, "Content-Type": "application/json", "User-Agent": USER_AGENT},
        )
        try:
            kept = response.read(amt=KEPT_BYTES, decode_content=False) or b""
        finally:
            response.release_conn()
    except urllib3.exceptions.TimeoutError:
        return outcome(None, f"timeout: no answer within {timeout:g} s", retry=True)
    except (urllib3.exceptions.HTTPError, OSError) as error:
        return outcome(None, f"connection_failed: {type(error).__name__}", retry=True)
    text = kept.decode("utf-8", errors="replace").replace("\x00", "")[:KEPT_BYTES]
    code = response.status
    error = "" if 200 <= code < 300 else f"http_{code}"
    return outcome(code, error, retry=code == 429 or code >= 500, response_body=text)


def _host_header(parts) -> str:
    """The Host header as the URL names its host: `urlsplit` strips an IPv6 literal's brackets,
    and `Host: 2001:db8::1` (unbracketed) is malformed, answered 400 by a receiver's server."""
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    return host if parts.port is None else f"{host}:{parts.port}"


def _pool(https: bool, address: str, port: int, hostname: str, timeout: float) -> urllib3.HTTPConnectionPool:
    limits = urllib3.Timeout(connect=timeout, read=timeout)
    if https:
        return urllib3.HTTPSConnectionPool(
            address, port, timeout=limits, maxsize=1, server_hostname=hostname, assert_hostname=hostname,
        )
    return urllib3.HTTPConnectionPool(address, port, timeout=limits, maxsize=1)
