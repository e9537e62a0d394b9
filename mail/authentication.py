"""Whether a mail really comes from the address in its From: SPF (RFC 7208, by pyspf) for the
connecting address and the envelope sender, and DKIM signatures (RFC 6376, by dkimpy), aligned
with the From's domain as DMARC aligns them (relaxed: the same domain or one under it).

The gateway asks this of mail to the server's own address, whose sender proves nothing by the
address it writes to (`mail.gateway`): mail that passes counts against its account's own limits,
on the players' path; mail that fails, or that cannot be checked (no signature, no SPF record, a
DNS failure), stays in the strangers' pool. A forger of a player's From fills only that pool.

Mail a provider's webhook brings was checked by the provider: with SCRAPYARD_MAIL_TRUSTED_AUTHSERV_ID
set to the id its MTA writes first in its Authentication-Results header (RFC 8601), the topmost
such header is read instead (`trusted_verdict`); never for mail that reaches the gateway straight
from the internet, where a sender writes whatever header it likes.

DNS goes through one seam, `resolver()`: the system's resolver (dnspython, short timeouts) or,
in tests, fixed records (`FixedRecords`). pyspf looks records up through a module-level function
(its documented hook), which this module points at the seam once.
"""

from __future__ import annotations

import email
import email.parser
import email.policy
import email.utils
import logging
import re
from dataclasses import dataclass
from typing import Protocol

import dkim
import dns.exception
import dns.resolver
import spf

log = logging.getLogger(__name__)

DNS_SECONDS = 3.0  # one lookup at most
SPF_SECONDS = 6.0  # a whole SPF check at most (includes, redirects)
MOST_SIGNATURES = 3  # DKIM signatures checked per mail: each costs a lookup and a hash of the body


class Resolver(Protocol):
    def lookup(self, name: str, qtype: str) -> list:
        """The records of `name` in pyspf's shapes: TXT a list of byte strings per record, A and
        AAAA an address, MX (preference, host), PTR a host. [] when there are none; raise
        `spf.TempError` when the answer could not be had."""


class SystemResolver:
    def lookup(self, name: str, qtype: str) -> list:
        try:
            answers = dns.resolver.resolve(name, qtype, lifetime=DNS_SECONDS)
        except (dns.resolver.NoAnswer, dns.resolver.NXDOMAIN):
            return []
        except dns.exception.DNSException as error:
            raise spf.TempError(f"DNS {type(error).__name__}") from None
        found = []
        for rdata in answers:
            if qtype in ("A", "AAAA"):
                found.append(rdata.address)
            elif qtype == "MX":
                found.append((rdata.preference, rdata.exchange.to_text(True)))
            elif qtype == "PTR":
                found.append(rdata.target.to_text(True))
            elif qtype in ("TXT", "SPF"):
                found.append(list(rdata.strings))
        return found


class FixedRecords:
    """Records given in advance, for tests: {(name, qtype): [record, ...]}, TXT records as text."""

    def __init__(self, records: dict[tuple[str, str], list]) -> None:
        self.records = {(name.lower().rstrip("."), qtype): values for (name, qtype), values in records.items()}

    def lookup(self, name: str, qtype: str) -> list:
        values = self.records.get((name.lower().rstrip("."), qtype), [])
        if qtype in ("TXT", "SPF"):
            return [[value.encode() if isinstance(value, str) else value] for value in values]
        return list(values)


_resolver: Resolver = SystemResolver()


def resolver() -> Resolver:
    return _resolver


def use_resolver(chosen: Resolver) -> Resolver:
    """Look records up with `chosen` from now on (tests: fixed records); the one used before."""
    global _resolver
    before, _resolver = _resolver, chosen
    return before


def _spf_lookup(name, qtype, strict=True, timeout=None):
    """pyspf's lookup function, answered by the seam, in pyspf's shape: ((name, qtype), value)."""
    return [((name, qtype), value) for value in resolver().lookup(name, qtype)]


spf.DNSLookup = _spf_lookup  # pyspf's hook: every lookup of an SPF check goes through the seam


def _dkim_txt(name, timeout=5):
    """dkimpy's TXT lookup (its `dnsfunc`): the record's strings joined, or None."""
    name = name.decode() if isinstance(name, bytes) else name
    try:
        records = resolver().lookup(name.rstrip("."), "TXT")
    except spf.TempError:
        return None
    return b"".join(records[0]) if records else None


# --- the checks ---------------------------------------------------------------------------------


def spf_result(ip: str, sender: str, helo: str) -> str:
    """SPF's verdict for mail from `ip` with this envelope sender: pass, fail, softfail, neutral,
    none, temperror or permerror."""
    if not ip or "@" not in (sender or ""):
        return "none"
    try:
        result, _explanation = spf.check2(i=ip, s=sender, h=helo or "unknown", querytime=SPF_SECONDS,
                                          timeout=DNS_SECONDS)
    except Exception as error:  # pyspf raises many kinds on hostile input: it is then no pass
        log.info("SPF could not be checked: %s", type(error).__name__)
        return "temperror"
    return str(result)


def dkim_domains(raw: bytes) -> list[str]:
    """The domains (d=) of the mail's DKIM signatures that verify, at most MOST_SIGNATURES tried."""
    try:
        message = dkim.DKIM(raw)
        count = sum(1 for name, _ in message.headers if name.lower() == b"dkim-signature")
    except Exception:  # dkimpy raises many kinds on a mail it cannot parse: nothing verifies
        return []
    verified = []
    for index in range(min(count, MOST_SIGNATURES)):
        try:
            checker = dkim.DKIM(raw)
            if checker.verify(idx=index, dnsfunc=_dkim_txt):
                verified.append(checker.domain.decode("ascii", "replace").lower())
        except Exception as error:  # a malformed or hostile signature is one that fails
            log.info("a DKIM signature could not be verified: %s", type(error).__name__)
    return verified


def aligned(domain: str, from_domain: str) -> bool:
    """DMARC's relaxed alignment, without the public suffix list: the same domain, or the From's
    domain under the authenticated one (a signature of a bare top-level domain counts for nothing)."""
    domain, from_domain = domain.lower().rstrip("."), from_domain.lower().rstrip(".")
    if not domain or "." not in domain:
        return False
    return from_domain == domain or from_domain.endswith("." + domain)


def domain_of(address: str) -> str:
    return address.rsplit("@", 1)[1].lower() if "@" in (address or "") else ""


@dataclass(frozen=True)
class Verdict:
    """What was proven of a mail's From: `address` (lowercased) when DKIM or SPF proved it, else
    "", and how (`dkim`, `spf`, or `none`)."""

    address: str
    how: str


def from_address(raw: bytes) -> str:
    """The From header's single address, lowercased; "" if there is not exactly one."""
    try:
        message = email.parser.BytesHeaderParser(policy=email.policy.compat32).parsebytes(raw)  # headers only
        froms = message.get_all("From") or []
        if len(froms) != 1:  # two From headers: which one a mail program shows is anyone's guess
            return ""
        addresses = email.utils.getaddresses([str(froms[0])])
    except Exception:
        return ""
    if len(addresses) != 1 or "@" not in addresses[0][1]:
        return ""
    return addresses[0][1].strip().lower()


def verdict(raw: bytes, *, ip: str, envelope_sender: str, helo: str, spf_known: str | None = None) -> Verdict:
    """Whether the mail's From is proven: a DKIM signature that verifies, of the From's domain
    (or one above it), or SPF passing for an envelope sender of the From's domain. `spf_known`:
    SPF's verdict already had for this envelope (the gateway checks it at RCPT)."""
    sender = from_address(raw)
    from_domain = domain_of(sender)
    if not from_domain:
        return Verdict("", "none")
    if any(aligned(domain, from_domain) for domain in dkim_domains(raw)):
        return Verdict(sender, "dkim")
    if aligned(domain_of(envelope_sender), from_domain):
        result = spf_known if spf_known is not None else spf_result(ip, envelope_sender, helo)
        if result == "pass":
            return Verdict(sender, "spf")
    return Verdict("", "none")



# --- a trusted MTA's verdict -----------------------------------------------------------------------

_COMMENT = re.compile(r"\([^()]*\)")


def trusted_verdict(raw: bytes, authserv_id: str) -> Verdict:
    """The From proven by the topmost Authentication-Results header, if `authserv_id` wrote it: a
    dmarc, dkim (header.d) or spf (smtp.mailfrom) pass aligned with the From's domain. A header
    of another id on top (a sender's own, or no trusted MTA on the way) proves nothing."""
    sender = from_address(raw)
    from_domain = domain_of(sender)
    if not from_domain or not authserv_id:
        return Verdict("", "none")
    try:
        message = email.parser.BytesHeaderParser(policy=email.policy.compat32).parsebytes(raw)
        found = message.get_all("Authentication-Results") or []
    except Exception:
        return Verdict("", "none")
    if not found:
        return Verdict("", "none")
    parts = [part.strip() for part in _COMMENT.sub(" ", str(found[0])[:4000]).split(";")]
    if not parts or parts[0].split()[:1] != [authserv_id]:
        return Verdict("", "none")
    for part in parts[1:]:
        words = part.split()
        if not words or "=" not in words[0]:
            continue
        method, result = (value.lower() for value in words[0].split("=", 1))
        if result != "pass":
            continue
        properties = dict(word.split("=", 1) for word in words[1:] if "=" in word)
        named = {"dmarc": properties.get("header.from", ""), "dkim": properties.get("header.d", ""),
                 "spf": domain_of(properties.get("smtp.mailfrom", ""))}.get(method, "")
        if named and aligned(named.strip('"'), from_domain):
            return Verdict(sender, method)
    return Verdict("", "none")
