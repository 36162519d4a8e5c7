"""A page's address in lowercase (/train, /draw) opens that page with its query parameters."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from linecnn.ui.i18n import catalog
from linecnn.ui.sidebar import PAGES

ROOT = Path(__file__).resolve().parent.parent
PAGE_FILES = [(path, name) for path, name, _icon in PAGES if path != "app.py"]


def lowercase_address(path: str) -> str:
    """The file Streamlit serves at a page's address in lowercase: pages/1_Train.py -> pages/train.py."""
    return f"pages/{Path(path).stem.split('_', 1)[1].lower()}.py"


@pytest.mark.parametrize(("path", "name"), PAGE_FILES)
def test_a_lowercase_address_opens_its_page_in_the_linked_language(path, name):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30)
    at.query_params["lang"] = "es"
    at.run()
    at.switch_page(lowercase_address(path)).run()
    assert not at.exception
    assert at.title[0].value.startswith(catalog("es")[f"sidebar.page.{name}"])  # that page, in Spanish
    assert at.query_params["lang"] == "es"


def test_every_page_has_its_lowercase_address_and_nothing_else_does():
    """A page added to the sidebar gets its lowercase address too; no address points nowhere."""
    aliases = {p.name for p in (ROOT / "pages").glob("*.py") if not p.name[0].isdigit()}
    assert aliases == {Path(lowercase_address(path)).name for path, _name in PAGE_FILES}
    for path, _name in PAGE_FILES:
        assert f'open_page("{path}")' in (ROOT / lowercase_address(path)).read_text(encoding="utf-8")
