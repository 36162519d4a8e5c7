"""On a phone, pressing Start or Step brings the run into view.

A phone's screen ends at the Train page's buttons: the progress line and the charts a run draws come
under them, out of sight, and the tap seemed to do nothing. After a tap on one of the run buttons this
scrolls their row to the top of the screen, with the progress and the loss chart under it and Pause and
Stop still in reach, and keeps it there while the run's first redraws change the page, until the reader
scrolls or touches the screen. A laptop screen already shows the charts under the buttons, so it is left
alone.
"""

from __future__ import annotations

import streamlit as st

BUTTONS_KEY = "train-buttons"  # the row of Start, Pause, Step and Stop: its element's class is st-key-<key>

_JS = """
export default function () {
  if (window.linecnnRunFollower) return;
  window.linecnnRunFollower = true;
  const rowSelector = ".st-key-train-buttons";
  const FOLLOW_MS = 20000;  // long enough for a loaded class server to draw a run's first epoch
  let until = 0;  // while now is before this, the row is kept at the top
  // A busy server draws the run's progress and charts seconds after the tap, and the page above the
  // row may change height meanwhile: the row is put back at the top whenever the page's size changes.
  const pin = () => {
    const row = document.querySelector(rowSelector);
    if (row && performance.now() < until) row.scrollIntoView({ block: "start" });
  };
  const sizes = new ResizeObserver(pin);
  // The reader takes over as soon as they scroll, touch or click the page (a scroll bar too) or press a
  // key; the tap that starts a run sets the time again after this.
  for (const type of ["wheel", "touchstart", "pointerdown", "keydown"]) {
    document.addEventListener(type, () => { until = 0; }, { capture: true, passive: true });
  }
  document.addEventListener("click", (event) => {
    const row = event.target.closest && event.target.closest(rowSelector);
    if (!row || !event.target.closest("button") || !window.matchMedia("(max-width: 767px)").matches) return;
    until = performance.now() + FOLLOW_MS;
    const page = document.querySelector('[data-testid="stMainBlockContainer"]');
    if (page) sizes.observe(page);
    // Streamlit's header covers the top 3.75rem: the row stops under it (scroll-margin-top, layout.py).
    requestAnimationFrame(() => row.scrollIntoView({ block: "start", behavior: "smooth" }));
  }, true);
}
"""
_follower = st.components.v2.component("linecnn_run_follower", js=_JS)


def follow_runs() -> None:
    """Mount, once a tab, the listener that scrolls a phone to the run when Start or Step is pressed."""
    _follower(key="train-follow")
