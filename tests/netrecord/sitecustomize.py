"""Records and refuses every attempt of this Python process to reach a non-loopback address.

Loaded at interpreter start-up when this folder is on PYTHONPATH and LINECNN_NET_RECORD names a
file: each name lookup or connect aimed beyond the loopback interface appends one line there and
fails as on a machine without a network, so a test never sends anything out. Name lookups count
too, so an attempt is seen even where no network exists at all.
"""

import errno
import ipaddress
import os
import socket

RECORD = os.environ.get("LINECNN_NET_RECORD")
LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}


def _is_local(host: object) -> bool:
    """True for the loopback interface and for 'any address' (used to bind, not to reach out)."""
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    name = str(host).strip("[]").lower()
    if name in LOOPBACK_NAMES or name == "":
        return True
    try:
        address = ipaddress.ip_address(name.split("%")[0])
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def _record(kind: str, target: object) -> None:
    """Append one attempt to the record file."""
    with open(RECORD, "a", encoding="utf-8") as record:
        record.write(f"{kind} {target!r}\n")


def _install() -> None:
    """Wrap the socket module's lookups and connects with the recorder."""
    original_getaddrinfo = socket.getaddrinfo
    original_connect = socket.socket.connect
    original_connect_ex = socket.socket.connect_ex

    def getaddrinfo(host, *args, **kwargs):
        if not _is_local(host):
            _record("getaddrinfo", host)
            raise socket.gaierror(socket.EAI_NONAME, "refused by the test's network recorder")
        return original_getaddrinfo(host, *args, **kwargs)

    def outward(sock: socket.socket, address: object) -> bool:
        if sock.family in (socket.AF_INET, socket.AF_INET6) and not _is_local(address[0]):
            _record("connect", address)
            return True
        return False

    def connect(self, address):
        if outward(self, address):
            raise OSError(errno.ENETUNREACH, "refused by the test's network recorder")
        return original_connect(self, address)

    def connect_ex(self, address):
        if outward(self, address):
            return errno.ENETUNREACH
        return original_connect_ex(self, address)

    socket.getaddrinfo = getaddrinfo
    socket.socket.connect = connect
    socket.socket.connect_ex = connect_ex


if RECORD:
    _install()
