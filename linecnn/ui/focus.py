"""Keyboard focus stays with a run's buttons when the page disables or removes the one that had it.

Pressing Start (Train) or Run benchmark disables that very button on the next rerun, and a run's end
takes away Cancel or disables Pause. The browser then drops the focus to the page itself: a screen
reader says nothing, or reads the page from the top, and the next Tab may begin at the top of the page,
far from the run. A group names, most wanted first, the buttons that act on one run; when the focused
button of a group is disabled or removed, the first enabled button of its group gets the focus (Pause
while a run trains, Start once it ends; Cancel while a benchmark runs, Run benchmark after). The page does not
scroll to it, so a reader who scrolled to the charts stays there. Focus moved by the reader (a Tab, a
click elsewhere) is left alone.
"""

from __future__ import annotations

import re

import streamlit as st

_JS = """
export default function ({ data }) {
  const groups = (window.linecnnFocusGroups = window.linecnnFocusGroups || {});
  groups[data.name] = data.groups;
  if (window.linecnnFocusKeeper) return;
  window.linecnnFocusKeeper = true;
  const groupOf = (element) => {
    for (const list of Object.values(groups)) {
      for (const group of list) if (group.some((selector) => element.matches(selector))) return group;
    }
    return null;
  };
  // A rerun that outlives a moment leaves the last run's elements faded, marked stale, until the script
  // ends; the Train page's script runs the whole run, so a pressed Resume stays there stale beside the
  // new Pause, and keeping the focus on it would leave the reader on a button that no longer acts.
  const stale = (element) => element.closest('[data-stale="true"]') !== null;
  const gone = (element) => element.disabled || !element.isConnected || stale(element);
  const unfocused = () => !document.activeElement || document.activeElement === document.body;
  let held = null;  // { element, group }: the run button that has the focus, or had it when it went
  document.addEventListener("focusin", (event) => {
    const element = event.composedPath()[0];
    const group = element instanceof Element ? groupOf(element) : null;
    held = group ? { element, group } : null;
  }, true);
  // A click on the page's background also drops the focus to the page: the button is still there.
  document.addEventListener("focusout", (event) => {
    const was = held;
    if (event.relatedTarget || !was) return;
    requestAnimationFrame(() => { if (held === was && !gone(was.element) && unfocused()) held = null; });
  }, true);
  const restore = () => {
    // A stale button keeps the focus itself; a disabled or removed one has dropped it to the page.
    if (!held || !gone(held.element) || !(unfocused() || document.activeElement === held.element)) return;
    for (const selector of held.group) {
      const next = [...document.querySelectorAll(selector)].find((element) => !gone(element));
      if (next) { next.focus({ preventScroll: true }); return; }
    }
  };
  let frame = 0;
  new MutationObserver(() => {
    frame = frame || requestAnimationFrame(() => { frame = 0; restore(); });
  }).observe(document.body, {
    subtree: true, childList: true, attributes: true, attributeFilter: ["disabled", "data-stale"],
  });
}
"""
_keeper = st.components.v2.component("linecnn_focus_keeper", js=_JS)
_NOT_IN_CLASS = re.compile(r"[^a-zA-Z0-9_-]")  # what Streamlit writes as '-' in an element's st-key- class


def key_selector(key: str) -> str:
    """The CSS selector of the element Streamlit draws for the widget or container ``key``."""
    return ".st-key-" + _NOT_IN_CLASS.sub("-", key.strip())


def submit_selector(form_key: str) -> str:
    """The CSS selector of the submit button of the form ``form_key`` (its key ends with its label)."""
    return f'[class*="st-key-FormSubmitter-{_NOT_IN_CLASS.sub("-", form_key.strip())}-"] button'


def keep_focus(name: str, groups: list[list[str]]) -> None:
    """Mount, once a tab, the script that moves a lost focus to the first enabled button of its group.

    ``groups``: each a list of CSS selectors of buttons, most wanted first (see the module's docstring).
    """
    _keeper(key=f"focus-keeper-{name}", data={"name": name, "groups": groups})
