"""Helpers shared by the tests: a real streamlit server, Chromium lookup, AppTest factory."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SERVER_START_TIMEOUT = 60.0
# `python -m streamlit`, but once Streamlit has stopped and the exit handlers have run, the process
# ends at once instead of having Python free every object of torch, pandas and Streamlit one by
# one: that last garbage collection took 3-9 s per stopped server on a busy 2-core machine, and
# frees nothing anyone reads. Exit status and output are kept.
STREAMLIT_LEAVING_AT_ONCE = """
import atexit, os, sys
from streamlit.web.cli import main
status = 0
try:
    main(prog_name="streamlit")
except SystemExit as end:
    if isinstance(end.code, int):
        status = end.code
    elif end.code is not None:  # a message, printed as Python would print it
        print(end.code, file=sys.stderr)
        status = 1
atexit._run_exitfuncs()
sys.stdout.flush()
sys.stderr.flush()
os._exit(status)
"""


def run_apart(coroutine):
    """Run ``coroutine`` to its end in a thread of its own: Playwright's sync API, once a browser test
    of the same worker has started it, leaves an event loop running in the main thread."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def in_ci() -> bool:
    """True when running under CI, where browser tests are mandatory."""
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def find_chromium() -> str | None:
    """Path of Debian's Chromium, or None."""
    for candidate in CHROMIUM_CANDIDATES:
        if os.path.exists(candidate):
            return candidate
    return shutil.which("chromium")


def free_port() -> int:
    """A free TCP port on the loopback interface."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class StreamlitServer:
    """``streamlit run app.py`` on a free loopback port, stopped by its PID.

    ``app_dir`` is where app.py lies and the server runs (its .streamlit/config.toml applies);
    ``pin_address=False`` leaves the bind address to that config instead of the command line;
    ``script`` is the main script, e.g. the hosting launcher deploy/serve.py.
    """

    def __init__(
        self,
        env: dict[str, str] | None = None,
        app_dir: Path = ROOT,
        pin_address: bool = True,
        script: str = "app.py",
    ) -> None:
        self.port = free_port()
        self.app_dir = app_dir
        self.script = script
        self.pin_address = pin_address
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = ROOT / "artifacts" / f"streamlit-{self.port}.log"
        self.env = {**os.environ, **(env or {})}
        self.process: subprocess.Popen | None = None

    def start(self) -> StreamlitServer:
        """Start the server and wait until /_stcore/health answers."""
        return self.launch().wait_until_healthy()

    def launch(self) -> StreamlitServer:
        """Start the server's process without waiting for it, so several can start at once."""
        self.log_path.parent.mkdir(exist_ok=True)
        command = [
            sys.executable,
            "-c",
            STREAMLIT_LEAVING_AT_ONCE,
            "run",
            self.script,
            *(["--server.address", "127.0.0.1"] if self.pin_address else []),
            "--server.port",
            str(self.port),
            "--server.headless",
            "true",
            "--browser.gatherUsageStats",
            "false",
        ]
        with open(self.log_path, "w") as log:
            self.process = subprocess.Popen(command, cwd=self.app_dir, env=self.env, stdout=log, stderr=log)
        return self

    def wait_until_healthy(self) -> StreamlitServer:
        """Wait until the launched server's /_stcore/health answers; stop it if it never does."""
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"streamlit exited early; see {self.log_path}")
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as response:
                    if response.status == 200:
                        return self
            except OSError:
                time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"streamlit did not become healthy in {SERVER_START_TIMEOUT:.0f} s")

    def stop(self) -> None:
        """Stop the server we started, by its PID only."""
        stop_process(self.process)


def stop_process(process: subprocess.Popen | None) -> None:
    """Stop a process this test run started, by its PID only: politely, then for good."""
    stop_processes([process])


def stop_processes(processes: list[subprocess.Popen | None]) -> None:
    """Stop processes this test run started, by their PIDs only: all asked at once, then each waited for."""
    running = [process for process in processes if process is not None and process.poll() is None]
    for process in running:
        process.terminate()
    for process in running:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def wait_for_app(tab, timeout_ms: int = 90_000) -> None:
    """Wait until the page's script has drawn the shared sidebar and Streamlit is idle again."""
    tab.wait_for_selector('[data-testid="stSidebar"] [data-testid="stPageLink"]', timeout=timeout_ms)
    tab.wait_for_function(
        """() => {
            const status = document.querySelector('[data-testid="stStatusWidget"]');
            return !status || !status.innerText.includes('Running');
        }""",
        timeout=timeout_ms,
    )


class ManualClock:
    """A clock that moves only when the test moves it (``clock.now += 2``), not at the machine's pace."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now


def app_test(page_path: str | None = None, timeout: float = 30):
    """An AppTest of app.py, switched to ``page_path`` (e.g. 'pages/1_Train.py') and run."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout).run()
    if page_path is not None:
        at.switch_page(page_path).run()
    return at


def shown(table):
    """A table of an AppTest run as the student reads it: the text of each cell where the page writes
    its numbers through a Styler (``linecnn.ui.tables``), else the values themselves."""
    from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df

    arrow = table.proto.arrow_data
    if arrow.HasField("styler") and arrow.styler.display_values:
        return convert_arrow_bytes_to_pandas_df(arrow.styler.display_values)
    return table.value


@contextmanager
def websocket_frames(tab) -> Iterator[list[bytes]]:
    """The binary frames the tab's page receives on its WebSocket while in the block; the listener is
    removed after it, even on a failure, as the tab may go back to the pool."""
    frames: list[bytes] = []

    def record(websocket) -> None:
        websocket.on("framereceived", lambda frame: isinstance(frame, bytes) and frames.append(frame))

    tab.on("websocket", record)
    try:
        yield frames
    finally:
        tab.remove_listener("websocket", record)


def headings_and_ends(frames: list[bytes], start: str = "") -> list[str]:
    """In the order the page got them: each heading starting with ``start`` ("heading") and each end of a
    script run ("ended"), from the frames of ``websocket_frames``."""
    # Imported here: conftest.py imports this module, and the GPU check runs the tests without Streamlit.
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    events = []
    for frame in frames:
        message = ForwardMsg()
        message.ParseFromString(frame)
        if message.WhichOneof("type") == "script_finished":
            events.append("ended")
        elif (heading := message.delta.new_element.heading.body) and heading.startswith(start):
            events.append("heading")
    return events
