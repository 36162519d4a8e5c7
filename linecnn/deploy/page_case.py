"""A page's address in another letter case (``/train``, ``/TRAIN``) opens that page, as ``/Train`` does.

Streamlit names a page's address after its file, case and all (pages/1_Train.py is ``/Train``),
matches addresses exactly, and runs Home under an English "Page not found" box for one it does not
know. People type the addresses from a slide in lowercase, so pages/ holds one small file per page
named in lowercase (pages/train.py is ``/train``) that only calls ``ui.page_alias.open_page``.
Their links are never drawn: the sidebar draws its own (linecnn.ui.sidebar.PAGES). ``st.navigation`` with a
``url_path`` per alias is no way out while pages/ exists: Streamlit then runs the file a deep link
names without app.py, so an app.py that called ``st.navigation`` would switch to it only after a
visit to Home, process-wide, and AppTest goes back to the pages/ folder on every run.

Any other case cannot be a page of its own: a hosted server (deploy/serve.py) answers it over HTTP
instead, with :class:`PageCase`, before Streamlit's page is loaded. ``streamlit run app.py`` has no
place for such a step, so on a laptop only the two spellings open the page.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

from starlette.responses import RedirectResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from linecnn.ui.sidebar import PAGES
from linecnn.ui.streamlit_private import config

# Each page's address as Streamlit names it, by the address in lowercase: 'train' -> 'Train'.
ADDRESSES = {name.lower(): name for name in (Path(path).stem.split("_", 1)[1] for path, _, _ in PAGES[1:])}


def page_address(path: str) -> str | None:
    """The page's own address for ``path`` typed in another case ('/TRAIN' -> '/Train'), else None.

    Only an address right under the app's root (``server.baseUrlPath``) is a page's: another path,
    '//other.example/TRAIN' among them, is left alone, so the answer never sends a browser elsewhere.
    """
    base = config.get_option("server.baseUrlPath").strip("/")
    root, _, typed = path.rstrip("/").rpartition("/")
    page = ADDRESSES.get(typed.lower())
    if page is None or root != (f"/{base}" if base else "") or typed in (page, page.lower()):
        return None
    return f"{root}/{page}"


class PageCase:
    """ASGI middleware: a page request under an address in another case is sent on to the page's own."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer '/TRAIN?lang=es' with a redirect to '/Train?lang=es'; pass every other request on."""
        target = page_address(scope["path"]) if scope["type"] == "http" else None
        if target is None:
            await self.app(scope, receive, send)
            return
        # The query as the browser sent it: bytes a client left raw are escaped once, escapes kept.
        query = quote(scope.get("query_string", b""), safe="=&%+;/?:@,$!*'()~")
        await RedirectResponse(f"{target}?{query}" if query else target)(scope, receive, send)
