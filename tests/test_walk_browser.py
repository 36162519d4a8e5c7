"""What a student trips on, walked in Chromium on a phone and a laptop."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.helpers import wait_for_app

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1366, "height": 768}


def test_the_lessons_closing_lists_stack_on_a_phone(server, tabs):
    """On a phone, what to remember and the usual mistakes each take the page's width, one under the other,
    instead of two columns of a few words a line."""
    tab = tabs.lend(PHONE, is_mobile=True, has_touch=True)
    tab.goto(f"{server.url}/Lesson")
    tab.get_by_text("Common mistakes").wait_for(state="attached")
    wait_for_app(tab)
    heading = tab.locator("h2#recap")
    heading.scroll_into_view_if_needed()
    rows = tab.locator("[data-testid='stHorizontalBlock']").filter(has_text="Common mistakes")
    columns = rows.last.locator("[data-testid='stColumn']")
    expect(columns).to_have_count(2)
    width = heading.bounding_box()["width"]
    remember, mistakes = (columns.nth(i).bounding_box() for i in range(2))
    assert remember["width"] >= 0.9 * width, (remember, width)
    assert mistakes["y"] >= remember["y"] + remember["height"], (remember, mistakes)


def test_a_file_over_the_uploads_size_says_why_on_a_phone_in_spanish(server, tabs):
    """A 3 MB JSON on a phone: the chip says, in Spanish, that files may be 2 MB at most, without a hover
    (a finger never hovers); the text is not only for screen readers."""
    tab = tabs.lend(PHONE, is_mobile=True, has_touch=True, locale="es-ES")
    tab.goto(f"{server.url}/Benchmark?lang=es")
    wait_for_app(tab)
    big = {"name": "grande.json", "mimeType": "application/json", "buffer": b" " * 3_000_000}
    tab.locator("[data-testid='stMain'] input[type=file]").first.set_input_files(big)
    refusal = "El archivo debe ocupar 2,0 MB como mucho."
    why = tab.locator("[data-testid='stFileChip']").get_by_text(refusal)
    why.wait_for(state="attached")
    why.scroll_into_view_if_needed()
    shown = why.bounding_box()
    assert shown is not None and shown["width"] > 100 and shown["height"] > 10, shown


def test_a_tables_toolbar_leaves_what_is_above_it_readable_on_a_phone(server, tabs):
    """A touch screen shows a table's toolbar at all times, above the table: it must not cover the end of
    the element before it (on Benchmark's class board, the chart's axis title)."""
    tab = tabs.lend(PHONE, is_mobile=True, has_touch=True)
    tab.goto(f"{server.url}/")
    wait_for_app(tab)
    toolbar = tab.locator("[data-testid='stMain'] [data-testid='stElementToolbar']").first
    toolbar.wait_for(state="attached")
    expect(toolbar).to_have_css("opacity", "1")  # shown without a hover, as a finger never hovers
    overlap = toolbar.evaluate(
        """(bar) => {
            const host = bar.closest('[data-testid="stElementContainer"]');
            const above = host.previousElementSibling.getBoundingClientRect();
            return above.bottom - bar.getBoundingClientRect().top;
        }"""
    )
    assert overlap <= 0, f"the toolbar covers the last {overlap:.0f} px of the element above the table"
