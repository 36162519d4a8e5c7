"""The frame every page shares: page config, navigation and the device toggle."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import streamlit as st
import torch

from linecnn.device import cuda_unavailable_reason, list_devices, resolve
from linecnn.ui import state
from linecnn.ui.anchor import keep_anchor
from linecnn.ui.auth import require_login
from linecnn.ui.builtin_texts import say_builtin_texts
from linecnn.ui.format import device_label
from linecnn.ui.i18n import current, init_language, language_toggle, say, t
from linecnn.ui.layout import apply_layout
from linecnn.ui.page_language import mark_page_language
from linecnn.ui.restart import show_restart_notice, watch_restart
from linecnn.ui.web import asset

T = TypeVar("T")  # what a page's device part of the sidebar gives the page

# (script path, key of its name in sidebar.toml, icon). Paths are relative to app.py, as
# st.page_link wants them.
PAGES = (
    ("app.py", "home", ":material/home:"),
    ("pages/1_Train.py", "train", ":material/model_training:"),
    ("pages/2_Benchmark.py", "benchmark", ":material/speed:"),
    ("pages/3_Draw.py", "draw", ":material/draw:"),
    ("pages/4_Lesson.py", "lesson", ":material/school:"),
)
# The browser tab's icon, one line on a square, drawn inline: Streamlit has the browser fetch a
# Material icon favicon from fonts.gstatic.com, an outside contact on every page load.
FAVICON = asset("favicon.svg")


def setup_page(page: str) -> torch.device:
    """Configure the page (``page``: its key in PAGES), draw the shared sidebar, return the device."""
    return _frame(page, device_toggle)


def setup_bench_page(page: str) -> None:
    """The same frame for a page that times every device: the sidebar says so instead of offering one."""
    _frame(page, lambda: st.caption(t("sidebar.every_device")))


def _frame(page: str, device_part: Callable[[], T]) -> T:
    """Page config, sign-in, the sidebar (page links, ``device_part``, language) and a restart's notice."""
    init_language()
    st.set_page_config(page_title=f"{t('sidebar.page.' + page)} · linecnn", page_icon=FAVICON, layout="wide")
    require_login()
    with st.sidebar:
        st.markdown(t("sidebar.tagline"))
        for path, name, page_icon in PAGES:
            page_link(path, name, page_icon)
        st.divider()
        device = device_part()
        language_toggle()
        keep_anchor()  # after the toggle, whose ?lang= drops the address's #anchor
        say_builtin_texts()
        mark_page_language()
    watch_restart()  # in the page, not the sidebar: a phone's closed sidebar runs nothing in it
    show_restart_notice()  # above the page's title, on every page until it is put away
    apply_layout()
    return device


def page_link(path: str, name: str, icon: str) -> None:
    """A link to a page in the session's language; its address keeps ?lang=, so a new tab opens in it too."""
    st.page_link(path, label=t("sidebar.page." + name), icon=icon, query_params={"lang": current()})


def device_toggle() -> torch.device:
    """Radio of the devices present here; the choice is kept for the whole session."""
    devices = {info.key: info for info in list_devices()}
    default = str(resolve("auto"))
    choice = st.radio(
        t("sidebar.device"),
        list(devices),
        index=list(devices).index(default),
        format_func=lambda key: device_label(devices[key]),
        key=state.DEVICE,
        persist_state="session",
        help=t("sidebar.device_help"),
    )
    reason = cuda_unavailable_reason()
    if reason:
        st.caption(t("sidebar.no_cuda", reason=say(reason)))
    return torch.device(choice)
