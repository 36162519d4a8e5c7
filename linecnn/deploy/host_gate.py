"""Host names of a hosted server (deploy/serve.py): loopback always let in, other names told why not.

Streamlit checks ``server.allowedHosts`` only on the WebSocket, after its page has loaded, so a
browser under a refused name would show the page's grey skeleton for ever. :class:`HostGate`
answers such a browser's page requests with a short page in its language instead, naming the
setting a host changes. :func:`hosting_lifespan` adds the loopback names to the list at start-up,
and again whenever Streamlit re-reads its config, and prints the names the server answers to and
who may delete runs (sign-in and teachers).
"""

from __future__ import annotations

import html
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from string import Template
from typing import Any

from starlette.datastructures import Headers, QueryParams
from starlette.responses import HTMLResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from linecnn.classroom.allowance import Allowance
from linecnn.deploy.host_names import host_name, public_names, with_loopback
from linecnn.ui.i18n import LANGUAGES, catalog, from_locale
from linecnn.ui.roles import roles_start_up_line
from linecnn.ui.streamlit_private import config, is_host_allowed
from linecnn.ui.web import asset

_LOG = logging.getLogger(__name__)
HOSTS_OPTION = "server.allowedHosts"
HOSTS_VARIABLE = "STREAMLIT_SERVER_ALLOWED_HOSTS"  # the environment variable a host sets
HEALTH_PATH = "/_stcore/health"  # answered under any name: probes use whatever address they have
REFUSED_STATUS = 403


def allow_loopback() -> None:
    """Add the loopback names to server.allowedHosts, unless the list lets in every name already."""
    hosts = list(config.get_option(HOSTS_OPTION))
    widened = with_loopback(hosts)
    if widened != hosts:
        config.set_option(HOSTS_OPTION, widened, "linecnn: loopback names are always allowed")


def page_language(headers: Headers, query: QueryParams) -> str:
    """'en' or 'es' for a request: a ?lang= link first, then the browser's first language."""
    link = query.get("lang")
    if link in LANGUAGES:
        return link
    return from_locale(headers.get("accept-language", "").split(",")[0].split(";")[0].strip())


def refused_page(host: str | None, language: str, port: int) -> str:
    """The page for a browser under a refused host name, in ``language``."""
    text = catalog(language)
    name = host_name(host) or "?"

    def say(key: str) -> str:
        return html.escape(text[f"host.{key}"].format(host=name, port=port, variable=HOSTS_VARIABLE))

    command = html.escape(f'{HOSTS_VARIABLE}="{name}"')
    keys = ("title", "refused", "why", "fix", "local", "student")
    texts = {key: say(key) for key in keys}
    return Template(asset("refused.html")).substitute(
        texts, language=html.escape(language), style=asset("refused.css"), command=command
    )


class HostGate:
    """ASGI middleware: an HTTP request under a host name Streamlit refuses gets the refusal page."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass allowed requests, WebSockets and health checks on; answer the rest with the page."""
        if scope["type"] != "http" or scope["path"].endswith(HEALTH_PATH):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host = headers.get("host")
        if is_host_allowed(host):
            await self.app(scope, receive, send)
            return
        _LOG.warning("Refusing a page request under host %r: it is not in %s", host, HOSTS_OPTION)
        language = page_language(headers, QueryParams(scope.get("query_string", b"")))
        page = refused_page(host, language, int(config.get_option("server.port")))
        await HTMLResponse(page, status_code=REFUSED_STATUS)(scope, receive, send)


def start_up_lines(hosts: list[str], port: int) -> list[str]:
    """What the start-up banner adds: the names served, the public addresses, the one on the machine."""
    if not hosts:
        return [f"  Every host name is allowed ({HOSTS_OPTION} is empty)."]
    lines = [f"  Host names allowed: {', '.join(hosts)}"]
    lines += [f"  Through a TLS proxy for that name: https://{name}/" for name in public_names(hosts)]
    return [*lines, f"  On this machine: http://127.0.0.1:{port}/"]


@asynccontextmanager
async def hosting_lifespan(_app: Any) -> AsyncIterator[None]:
    """While the server runs: the loopback names stay allowed across config re-reads."""
    disconnect = config.on_config_parsed(allow_loopback, force_connect=True)
    allow_loopback()
    hosts = list(config.get_option(HOSTS_OPTION))
    lines = start_up_lines(hosts, int(config.get_option("server.port")))
    print("\n".join([*lines, f"  {roles_start_up_line()}"]), flush=True)
    Allowance.from_env()  # a benchmark share that caps nothing is logged now, not at the first Benchmark page
    try:
        yield
    finally:
        disconnect()
