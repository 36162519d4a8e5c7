"""Which host names a hosted server answers to: the host's list, and the loopback names always.

A host names the public name in ``server.allowedHosts`` (through STREAMLIT_SERVER_ALLOWED_HOSTS),
and that setting replaces the whole list. A list without the loopback names would lock out the
browser on the server itself and every check made there, so they are added whatever the host set.
"""

from __future__ import annotations

from urllib.parse import urlsplit

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")  # names that reach only the machine itself
ANY_HOST = "*"  # Streamlit's pattern for every host name
MAX_SHOWN = 100  # characters of a refused Host header quoted back on the refusal page


def _normal(pattern: str) -> str:
    """A host name or pattern as Streamlit compares it: trimmed, lower case, no final dot."""
    return pattern.strip().lower().rstrip(".")


def with_loopback(hosts: list[str]) -> list[str]:
    """``hosts`` with the loopback names added; an empty list or '*' already allows every name."""
    normal = {_normal(host) for host in hosts}
    if not normal or ANY_HOST in normal:
        return list(hosts)
    return [*hosts, *(name for name in LOOPBACK_NAMES if name not in normal)]


def public_names(hosts: list[str]) -> list[str]:
    """The names in ``hosts`` that students can type: neither loopback nor a wildcard pattern."""
    return [host for host in hosts if _normal(host) not in LOOPBACK_NAMES and "*" not in host]


def host_name(header: str | None) -> str:
    """The name in a Host header without its port, bounded for quoting back; '' when unreadable."""
    try:
        name = urlsplit(f"//{header or ''}").hostname or ""
    except ValueError:
        name = ""
    return name[:MAX_SHOWN]
