"""A link to a section (``/Lesson#move``) lands on that section even when the sidebar adds ``?lang=``.

Streamlit writes a changed query string to the address without its ``#anchor``, and that happens
before the section's heading is drawn, so the browser scrolls nowhere. The first address the tab
opened is still known to the browser (its navigation entry): once the heading exists, the anchor is
put back in the address (a copied link keeps both) and the heading is scrolled into view.
"""

from __future__ import annotations

import streamlit as st

_JS = """
export default function () {
  if (window.linecnnAnchorKept) return;
  window.linecnnAnchorKept = true;
  const entry = performance.getEntriesByType("navigation")[0];
  if (!entry) return;
  const opened = new URL(entry.name);
  const anchor = decodeURIComponent(opened.hash.slice(1));
  if (!anchor) return;
  const giveUp = Date.now() + 60000;  // a page that never draws the anchor: stop looking
  let settleUntil = 0;  // the styles and text drawn after the heading move it for a moment
  let reader = false;  // once the reader scrolls, the page is theirs
  for (const name of ["wheel", "touchstart", "keydown", "mousedown"]) {
    addEventListener(name, () => { reader = true; }, { once: true, capture: true });
  }
  let top = null;
  const seek = () => {
    // Scrolled, or on another page (/lesson#move lands on /Lesson: linecnn.ui.page_case).
    if (reader || location.pathname.toLowerCase() !== opened.pathname.toLowerCase()) return;
    const heading = document.getElementById(anchor);
    if (!heading) {
      if (Date.now() < giveUp) setTimeout(seek, 100);
      return;
    }
    if (location.hash !== opened.hash) {
      history.replaceState(history.state, "", location.pathname + location.search + opened.hash);
    }
    if (top === null) settleUntil = Date.now() + 3000;
    if (heading.getBoundingClientRect().top !== top) {
      heading.scrollIntoView();
      top = heading.getBoundingClientRect().top;
    }
    if (Date.now() < settleUntil) setTimeout(seek, 100);
  };
  seek();
}
"""
_anchor_keeper = st.components.v2.component("linecnn_anchor_keeper", js=_JS)


def keep_anchor() -> None:
    """Put the tab's first ``#anchor`` back once its heading is drawn, and scroll to it (once a tab)."""
    _anchor_keeper(key="anchor.keeper")
