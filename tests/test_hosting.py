"""The laptop config and the hosting profile: safe values, no outside contact, the README's commands.

The server tests load tests/netrecord/sitecustomize.py into the streamlit process, which records
(and refuses) every name lookup or connect aimed beyond the loopback interface.
"""

from __future__ import annotations

import base64
import http.client
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.helpers import ROOT, StreamlitServer, wait_for_app

LAPTOP = ROOT / ".streamlit" / "config.toml"
PROFILE = ROOT / "deploy" / "hosting.toml"
NETRECORD = ROOT / "tests" / "netrecord"
PUBLIC_HOST = "class.example.org"  # the public name a host gives the app through the environment


def load(path: Path) -> dict:
    """A TOML file as a dict."""
    return tomllib.loads(path.read_text(encoding="utf-8"))


def recorded_env(record: Path, home: Path) -> dict[str, str]:
    """Environment for a streamlit process whose outward network attempts land in ``record``.

    HOME is private so that a user's own ~/.streamlit/config.toml cannot change what is tested.
    """
    path = os.pathsep.join([str(NETRECORD), str(ROOT), os.environ.get("PYTHONPATH", "")])
    return {
        "PYTHONPATH": path.rstrip(os.pathsep),
        "LINECNN_NET_RECORD": str(record),
        "LINECNN_DATA_DIR": str(home / "data"),
        "HOME": str(home),
    }


def attempts(record: Path) -> list[str]:
    """The outward attempts recorded so far."""
    return record.read_text(encoding="utf-8").splitlines() if record.exists() else []


def app_with_config(folder: Path, config: Path) -> Path:
    """A copy of the app in ``folder`` with ``config`` as its .streamlit/config.toml, as in the image."""
    shutil.copy(ROOT / "app.py", folder / "app.py")
    shutil.copytree(ROOT / "pages", folder / "pages", ignore=shutil.ignore_patterns("__pycache__"))
    (folder / ".streamlit").mkdir()
    shutil.copy(config, folder / ".streamlit" / "config.toml")
    return folder


def websocket_status(port: int, host: str) -> int:
    """HTTP status of a WebSocket handshake on the app's stream, sent with ``host`` as the Host header."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request(
            "GET",
            "/_stcore/stream",
            headers={
                "Host": host,
                "Upgrade": "websocket",
                "Connection": "Upgrade",
                "Sec-WebSocket-Key": base64.b64encode(os.urandom(16)).decode(),
                "Sec-WebSocket-Version": "13",
            },
        )
        return connection.getresponse().status
    finally:
        connection.close()


def readme_command(section: str) -> str:
    """The command of a README section: its first bash block, which must be one line."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    body = text.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", body, flags=re.DOTALL)
    assert blocks, f"README's '{section}' has no bash block"
    lines = blocks[0].strip().splitlines()
    assert len(lines) == 1, f"README's '{section}' should give one command line"
    return lines[0]


def test_laptop_config_binds_loopback_only():
    assert load(LAPTOP)["server"]["address"] == "127.0.0.1"


def test_hosting_profile_takes_every_file_the_app_accepts_and_no_more():
    """The server's upload cap is the largest of the app's own caps: a valid run history still uploads."""
    from linecnn.bench.jsonfields import MAX_FILE_BYTES
    from linecnn.ui.restore import UPLOAD_MB

    largest_mb = max(UPLOAD_MB, -(-MAX_FILE_BYTES // 2**20))
    assert load(PROFILE)["server"]["maxUploadSize"] == largest_mb
    assert load(LAPTOP)["server"]["maxUploadSize"] == largest_mb  # the laptop's server refuses more too


def test_hosting_profile_has_the_safe_values():
    profile = load(PROFILE)
    server = profile["server"]
    assert server["address"] == "127.0.0.1"
    assert profile["client"]["showErrorDetails"] in ("type", "none")
    assert profile["client"]["showErrorLinks"] is False
    assert server["maxUploadSize"] <= 8
    assert server["enableCORS"] is True and server["enableXsrfProtection"] is True
    assert server["allowedHosts"] and "*" not in server["allowedHosts"]
    assert server.get("corsAllowedOrigins", []) == []
    assert profile["browser"]["gatherUsageStats"] is False
    assert profile["browser"]["serverAddress"]


def test_hosting_profile_looks_like_the_laptop_config():
    laptop, profile = load(LAPTOP), load(PROFILE)
    assert profile["theme"] == laptop["theme"]
    hosting_only = ("showErrorDetails", "showErrorLinks")
    assert {k: v for k, v in profile["client"].items() if k not in hosting_only} == laptop["client"]
    for key in ("headless", "runOnSave"):
        assert profile["server"][key] == laptop["server"][key]


def test_streamlit_reads_every_option_of_the_profile(tmp_path):
    (tmp_path / ".streamlit").mkdir()
    shutil.copy(PROFILE, tmp_path / ".streamlit" / "config.toml")
    result = subprocess.run(
        [sys.executable, "-m", "streamlit", "config", "show"],
        cwd=tmp_path,
        env={**os.environ, "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert "is not a valid config option" not in result.stderr
    shown = tomllib.loads(result.stdout[result.stdout.index("\n[") :])
    hidden = {"runner.postScriptGC"}  # real options that `config show` leaves out; checked below
    for section, options in load(PROFILE).items():
        for key, value in options.items():
            if f"{section}.{key}" not in hidden:
                assert shown[section][key] == value, f"{section}.{key}"
    probe = "from streamlit import config; print(config.get_option('runner.postScriptGC'))"
    read = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        env={**os.environ, "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert read.stdout.strip() == "False"


def test_dockerfile_makes_the_profile_the_app_config():
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8").replace("\\\n", " ")
    workdir = re.findall(r"^WORKDIR\s+(\S+)", dockerfile, flags=re.MULTILINE)[-1]
    assert f"COPY deploy/hosting.toml {workdir}/.streamlit/config.toml" in dockerfile
    port = load(PROFILE)["server"]["port"]
    assert re.search(rf"^HEALTHCHECK .*127\.0\.0\.1:{port}/_stcore/health", dockerfile, flags=re.MULTILINE)


def test_ci_runs_the_readme_test_command_verbatim():
    command = readme_command("Test it")
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert command in ci_lines
    assert command.startswith("python3 -m venv .venv && ")


def test_readme_run_command_starts_the_app_from_the_venv():
    command = readme_command("Run it")
    assert command.startswith("python3 -m venv .venv && ")
    assert command.endswith(".venv/bin/python -m streamlit run app.py")


@pytest.mark.parametrize("config", [PROFILE, LAPTOP], ids=["hosting", "laptop"])
def test_a_server_binding_every_interface_looks_up_nothing_outside_only_with_the_profile(tmp_path, config):
    """As the container runs it (every interface bound), the profile keeps start-up offline;
    the laptop config, meant for loopback, does not: that contrast shows the recorder works.

    Calls the start-up banner code of streamlit directly, so no server binds a public interface here.
    """
    (tmp_path / ".streamlit").mkdir()
    shutil.copy(config, tmp_path / ".streamlit" / "config.toml")
    record = tmp_path / "record.txt"
    code = (
        "from streamlit import config\n"
        "config.get_config_options(force_reparse=True, options_from_flags={'server.address': '0.0.0.0'})\n"
        "from streamlit.web import bootstrap\n"
        "bootstrap._print_url(False)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env={**os.environ, **recorded_env(record, tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    if config == PROFILE:
        assert attempts(record) == []
        assert "URL: http://localhost:8501" in result.stdout
    else:
        assert any("checkip" in line for line in attempts(record))


@pytest.fixture(scope="module")
def hosted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[StreamlitServer, Path]]:
    """The app served with the hosting profile and the public host name from the environment."""
    home = tmp_path_factory.mktemp("hosted")
    record = home / "record.txt"
    env = {**recorded_env(record, home), "STREAMLIT_SERVER_ALLOWED_HOSTS": f"{PUBLIC_HOST} localhost"}
    folder = app_with_config(tmp_path_factory.mktemp("hosted-app"), PROFILE)
    instance = StreamlitServer(env, app_dir=folder, pin_address=False).start()
    yield instance, record
    instance.stop()


@pytest.fixture
def laptop(tmp_path: Path) -> Iterator[tuple[StreamlitServer, Path]]:
    """`streamlit run app.py` in the repository as the README starts it: its config picks the address."""
    record = tmp_path / "record.txt"
    instance = StreamlitServer(recorded_env(record, tmp_path), pin_address=False).start()
    yield instance, record
    instance.stop()


def open_home(page, url: str) -> None:
    """Load the Home page in the browser and wait until its script has run."""
    page.goto(url)
    wait_for_app(page)
    # Waits for it: the status widget can read idle before the page's first script run is drawn.
    expect(page.get_by_role("heading", name="This machine")).to_be_visible(timeout=30_000)


@pytest.mark.browser
def test_laptop_start_up_and_first_page_reach_nothing_outside(page, laptop):
    server, record = laptop
    open_home(page, server.url)
    assert attempts(record) == []


@pytest.mark.browser
def test_hosted_start_up_and_first_page_reach_nothing_outside(page, hosted):
    server, record = hosted
    # By name, as a browser behind the proxy does: the profile's allowedHosts has no bare IP.
    open_home(page, f"http://localhost:{server.port}")
    assert attempts(record) == []


def test_hosted_app_opens_its_websocket_only_for_allowed_host_names(hosted):
    server, _ = hosted
    assert websocket_status(server.port, PUBLIC_HOST) == 101
    assert websocket_status(server.port, f"localhost:{server.port}") == 101
    assert websocket_status(server.port, "rebound.attacker.example") == 403
    assert websocket_status(server.port, f"127.0.0.1:{server.port}") == 403
