"""Kubernetes' url, ip and cidr libraries.

`url(s)` accepts what Go's `url.ParseRequestURI` accepts (an absolute URI or an absolute path);
`ip(s)` and `cidr(s)` accept what Go's `netip` parsers do — no IPv4-mapped IPv6 forms, no zones —
as Kubernetes' libraries require.
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

from flotilla.apiserver.registry.cel.budget import Budget
from flotilla.apiserver.registry.cel.library import register
from flotilla.apiserver.registry.cel.values import EvalError, no_overload


class URL:
    __slots__ = ("parts", "text")
    cel_type = "net.URL"

    def __init__(self, text: str) -> None:
        self.text = text
        self.parts = urlsplit(text)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, URL) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def cel_string(self) -> str:
        return self.text


class IP:
    __slots__ = ("address",)
    cel_type = "net.IP"

    def __init__(self, address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> None:
        self.address = address

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IP) and other.address == self.address

    def __hash__(self) -> int:
        return hash(self.address)

    def cel_string(self) -> str:
        return str(self.address)


class CIDR:
    __slots__ = ("address", "network", "prefix")
    cel_type = "net.CIDR"

    def __init__(self, address: ipaddress.IPv4Address | ipaddress.IPv6Address, prefix: int) -> None:
        self.address = address
        self.prefix = prefix
        self.network = ipaddress.ip_network(f"{address}/{prefix}", strict=False)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CIDR) and (other.address, other.prefix) == (self.address, self.prefix)

    def __hash__(self) -> int:
        return hash((self.address, self.prefix))

    def cel_string(self) -> str:
        return f"{self.address}/{self.prefix}"


def _parse_url(text: Any) -> URL | None:
    if not isinstance(text, str):
        raise no_overload("url", text)
    try:
        parts = urlsplit(text)
    except ValueError:
        return None
    if any(c in text for c in " \t\n") or not (parts.scheme or text.startswith("/")):
        return None
    return URL(text)


def _url(budget: Budget, text: Any) -> URL:
    found = _parse_url(text)
    if found is None:
        raise EvalError(f"URL parse error during conversion from string: parse {text!r}: invalid URI")
    return found


def _is_url(budget: Budget, text: Any) -> bool:
    return _parse_url(text) is not None


def _url_part(name: str) -> Any:
    def read(budget: Budget, target: Any) -> Any:
        if not isinstance(target, URL):
            raise no_overload(name, target)
        parts = target.parts
        if name == "getScheme":
            return parts.scheme
        if name == "getHost":
            return parts.netloc.rpartition("@")[2]
        if name == "getHostname":
            return parts.hostname or ""
        if name == "getPort":
            host = parts.netloc.rpartition("@")[2]
            return host.rpartition(":")[2] if ":" in host.rpartition("]")[2] else ""
        if name == "getEscapedPath":
            return parts.path
        return _query(parts.query)

    return read


def _query(text: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for pair in text.split("&") if text else []:
        key, _, value = pair.partition("=")
        found.setdefault(key, []).append(value)
    return found


def _parse_ip(text: Any) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    if not isinstance(text, str):
        raise no_overload("ip", text)
    if "%" in text:
        return None
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None and "." in text:
        return None
    return address


def _ip(budget: Budget, value: Any) -> IP:
    if isinstance(value, CIDR):
        return IP(value.address)
    address = _parse_ip(value)
    if address is None:
        raise EvalError(
            f"IP Address {value!r} parse error during conversion from string: ParseAddr({value!r})"
        )
    return IP(address)


def _is_ip(budget: Budget, text: Any) -> bool:
    return _parse_ip(text) is not None


def _is_canonical(budget: Budget, text: Any) -> bool:
    address = _parse_ip(text)
    if address is None:
        raise EvalError(f"IP Address {text!r} parse error during conversion from string")
    return bool(str(address) == text)


def _parse_cidr(text: Any) -> CIDR | None:
    if not isinstance(text, str):
        raise no_overload("cidr", text)
    address_text, slash, prefix_text = text.partition("/")
    address = _parse_ip(address_text)
    if address is None or not slash or not prefix_text.isdigit():
        return None
    prefix = int(prefix_text)
    if prefix > address.max_prefixlen:
        return None
    return CIDR(address, prefix)


def _cidr(budget: Budget, text: Any) -> CIDR:
    found = _parse_cidr(text)
    if found is None:
        raise EvalError(f"network address parse error during conversion from string: {text!r}")
    return found


def _is_cidr(budget: Budget, text: Any) -> bool:
    return _parse_cidr(text) is not None


def _ip_test(name: str) -> Any:
    def test(budget: Budget, target: Any) -> Any:
        if not isinstance(target, IP):
            raise no_overload(name, target)
        address = target.address
        if name == "family":
            return address.version
        if name == "isUnspecified":
            return address.is_unspecified
        if name == "isLoopback":
            return address.is_loopback
        if name == "isLinkLocalMulticast":
            network = "224.0.0.0/24" if address.version == 4 else "ff02::/16"
            return address in ipaddress.ip_network(network)
        if name == "isLinkLocalUnicast":
            return address.is_link_local and not address.is_multicast
        return not (
            address.is_unspecified or address.is_loopback or address.is_multicast or address.is_link_local
        )

    return test


def _contains_ip(budget: Budget, target: Any, other: Any) -> bool:
    if not isinstance(target, CIDR):
        raise no_overload("containsIP", target, other)
    address = other.address if isinstance(other, IP) else _parse_ip(other)
    if address is None:
        raise EvalError(f"IP Address {other!r} parse error during conversion from string")
    return address.version == target.address.version and address in target.network


def _contains_cidr(budget: Budget, target: Any, other: Any) -> bool:
    if not isinstance(target, CIDR):
        raise no_overload("containsCIDR", target, other)
    inner = other if isinstance(other, CIDR) else _parse_cidr(other)
    if inner is None:
        raise EvalError(f"network address parse error during conversion from string: {other!r}")
    return inner.address.version == target.address.version and inner.network.subnet_of(target.network)  # type: ignore[arg-type]


def _prefix_length(budget: Budget, target: Any) -> int:
    if not isinstance(target, CIDR):
        raise no_overload("prefixLength", target)
    return target.prefix


def _masked(budget: Budget, target: Any) -> CIDR:
    if not isinstance(target, CIDR):
        raise no_overload("masked", target)
    return CIDR(target.network.network_address, target.prefix)


register("url", _url, global_arities=(1,))
register("isURL", _is_url, global_arities=(1,))
for _part in ("getScheme", "getHost", "getHostname", "getPort", "getEscapedPath", "getQuery"):
    register(_part, _url_part(_part), member_arities=(1,))
register("ip", _ip, global_arities=(1,), member_arities=(1,))
register("isIP", _is_ip, global_arities=(1,))
register("ip.isCanonical", _is_canonical, global_arities=(1,))
register("cidr", _cidr, global_arities=(1,))
register("isCIDR", _is_cidr, global_arities=(1,))
for _test in (
    "family",
    "isUnspecified",
    "isLoopback",
    "isLinkLocalMulticast",
    "isLinkLocalUnicast",
    "isGlobalUnicast",
):
    register(_test, _ip_test(_test), member_arities=(1,))
register("containsIP", _contains_ip, member_arities=(2,))
register("containsCIDR", _contains_cidr, member_arities=(2,))
register("prefixLength", _prefix_length, member_arities=(1,))
register("masked", _masked, member_arities=(1,))
