"""Rules for single scalar fields shared by many kinds: ports, percentages, int-or-string values.

Kubernetes has a handful of scalar conventions that recur across groups — a port is a number in
1..65535 or an IANA-style name, `maxSurge`/`maxUnavailable`/`minAvailable` are an integer or a
percentage string (`IntOrString`), a named port must contain a letter — and apimachinery words
each violation the same way wherever it appears. This module holds those rules and their wording.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any

from flotilla.api import fielderrors
from flotilla.api.fielderrors import FieldError
from flotilla.apiserver.registry.validation.metadata import nonnegative

PORT_NAME_MAX = 15
_PORT_NAME_CHARACTERS = re.compile(r"[-a-z0-9]+\Z")
_PERCENT = re.compile(r"[0-9]+%\Z")
PERCENT_MESSAGE = (
    "a valid percent string must be a numeric string followed by an ending '%' "
    "(e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"
)


def inclusive_range(low: int, high: int) -> str:
    return f"must be between {low} and {high}, inclusive"


def port_number_errors(port: int) -> list[str]:
    return [] if 1 <= port <= 65535 else [inclusive_range(1, 65535)]


def port_name_errors(name: str) -> list[str]:
    """kube's `IsValidPortName`: an IANA service name."""
    errors = []
    if len(name) > PORT_NAME_MAX:
        errors.append(f"must be no more than {PORT_NAME_MAX} characters")
    if not _PORT_NAME_CHARACTERS.match(name):
        errors.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    elif not re.search(r"[a-z]", name):
        errors.append("must contain at least one letter (a-z)")
    if "--" in name:
        errors.append("must not contain consecutive hyphens")
    if name and (name[0] == "-" or name[-1] == "-"):
        errors.append("must not begin or end with a hyphen")
    return errors


def is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def port_number_or_name(value: Any, path: str) -> list[FieldError]:
    """kube's `ValidatePortNumOrName` for an IntOrString port (absent reads as 0, like Go)."""
    if value is None:
        value = 0
    if is_integer(value):
        return [fielderrors.invalid(path, value, message) for message in port_number_errors(value)]
    if isinstance(value, str):
        return [fielderrors.invalid(path, value, message) for message in port_name_errors(value)]
    return [fielderrors.invalid(path, value, "must be an integer or a port name")]


def positive_int_or_percent(value: Any, path: str) -> list[FieldError]:
    """kube's `ValidatePositiveIntOrPercent`."""
    if isinstance(value, str):
        return [] if _PERCENT.match(value) else [fielderrors.invalid(path, value, PERCENT_MESSAGE)]
    if is_integer(value):
        return nonnegative(value, path)
    return [fielderrors.invalid(path, value, "must be an integer or percentage (e.g '5%')")]


def percent_value(value: Any) -> int | None:
    """The number of a valid percentage string, None for anything else."""
    if isinstance(value, str) and _PERCENT.match(value):
        return int(value[:-1])
    return None


def int_or_percent_value(value: Any) -> int:
    """The number in an int-or-percent value (kube's `getIntOrPercentValue`); 0 when unusable."""
    percent = percent_value(value)
    if percent is not None:
        return percent
    if is_integer(value):
        return int(value)
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return 0


def not_more_than_100_percent(value: Any, path: str) -> list[FieldError]:
    percent = percent_value(value)
    if percent is None or percent <= 100:
        return []
    return [fielderrors.invalid(path, value, "must not be greater than 100%")]


def positive(value: int, path: str) -> list[FieldError]:
    return [fielderrors.invalid(path, value, "must be greater than 0")] if value <= 0 else []


def ip_address_errors(value: str) -> list[str]:
    """kube's `IsValidIP` wording for anything that is not an IPv4 or IPv6 address."""
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]
    return []


def ip_errors(value: str, path: str) -> list[FieldError]:
    return [fielderrors.invalid(path, value, message) for message in ip_address_errors(value)]


def non_special_ip(value: str, path: str) -> list[FieldError]:
    """kube's `ValidateNonSpecialIP`: endpoints may not point at unspecified, loopback or link-local IPs."""
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        return []
    if address.is_unspecified:
        detail = f"may not be unspecified ({value})"
    elif address.is_loopback:
        detail = "may not be in the loopback range (127.0.0.0/8, ::1/128)"
    elif address.is_link_local:
        detail = "may not be in the link-local range (169.254.0.0/16, fe80::/10)"
    elif address in ipaddress.ip_network("224.0.0.0/24") or (
        address.version == 6 and address in ipaddress.ip_network("ff02::/16")
    ):
        detail = "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"
    else:
        return []
    return [fielderrors.invalid(path, value, detail)]


def cidr_errors(value: str, path: str) -> list[FieldError]:
    """kube's `IsValidCIDR` wording for anything that is not an address/prefix pair."""
    message = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"
    if "/" not in value:
        return [fielderrors.invalid(path, value, message)]
    try:
        ipaddress.ip_network(value, strict=False)
    except ValueError:
        return [fielderrors.invalid(path, value, message)]
    return []


def ip_family_errors(value: str, version: int, path: str) -> list[FieldError]:
    """An address of one IP family (`IsValidIPv4Address`, `IsValidIPv6Address`)."""
    try:
        if ipaddress.ip_address(value).version == version:
            return []
    except ValueError:
        pass
    return [fielderrors.invalid(path, value, f"must be a valid IPv{version} address")]
