"""linecnn served to a class: `python -m streamlit run deploy/serve.py` from the repository root.

Being the main script, this file makes Streamlit read the hosting profile beside it
(deploy/.streamlit/config.toml) over the repository's laptop config. It serves app.py and pages/
unchanged, with the loopback names always allowed and a readable page, instead of an endless
skeleton, for a browser under a host name the server does not answer to (linecnn/deploy/host_gate.py), and
a page's address typed in any letter case sent on to that page (linecnn/deploy/page_case.py).
Port and public name come from STREAMLIT_SERVER_PORT and STREAMLIT_SERVER_ALLOWED_HOSTS.
"""

from pathlib import Path

import streamlit as st
from starlette.middleware import Middleware

from linecnn.deploy.host_gate import HostGate, hosting_lifespan
from linecnn.deploy.page_case import PageCase

APP = Path(__file__).resolve().parent.parent / "app.py"  # the Home page; pages/ lies beside it

app = st.App(APP, middleware=[Middleware(HostGate), Middleware(PageCase)], lifespan=hosting_lifespan)
