"""The laptop config, the hosting profile and its launcher, the image: safe values, no outside contact,
host names that cannot lock a class out, pinned dependencies, the README's commands.

The server tests load tests/netrecord/sitecustomize.py into the streamlit process, which records
(and refuses) every name lookup or connect aimed beyond the loopback interface.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.helpers import ROOT

LAPTOP = ROOT / ".streamlit" / "config.toml"
PROFILE = ROOT / "deploy" / ".streamlit" / "config.toml"  # read over the laptop config by the launcher
LAUNCHER = "deploy/serve.py"  # the main script of a hosted server, relative to the repository root
CONSTRAINTS = ROOT / "constraints.txt"
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


def test_hosting_profile_sets_every_option_the_laptop_config_sets():
    """The launcher's Streamlit reads the laptop config first: the profile alone must decide."""
    laptop, profile = load(LAPTOP), load(PROFILE)
    for section, options in laptop.items():
        assert set(options) <= set(profile.get(section, {})), section


def test_the_launcher_runs_with_the_profile_over_the_laptop_config(tmp_path):
    """Streamlit's config as `streamlit run deploy/serve.py` reads it in the repository: the profile's."""
    probe = (
        "import json, sys\n"
        "from streamlit import config\n"
        f"config._main_script_path = {str(ROOT / LAUNCHER)!r}\n"
        "names = json.loads(sys.stdin.read())\n"
        "print(json.dumps({name: config.get_option(name) for name in names}))\n"
    )
    names = [f"{section}.{key}" for section, options in load(PROFILE).items() for key in options]
    env = {key: value for key, value in os.environ.items() if not key.startswith("STREAMLIT_")}
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=ROOT,
        env={**env, "HOME": str(tmp_path)},
        input=json.dumps(names),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    read = json.loads(result.stdout.strip().splitlines()[-1])
    for section, options in load(PROFILE).items():
        for key, value in options.items():
            assert read[f"{section}.{key}"] == value, f"{section}.{key}"


def test_hosting_profile_looks_like_the_laptop_config():
    laptop, profile = load(LAPTOP), load(PROFILE)
    assert profile["theme"] == laptop["theme"]
    hosting_only = ("showErrorDetails", "showErrorLinks")
    assert {k: v for k, v in profile["client"].items() if k not in hosting_only} == laptop["client"]
    for key in ("headless", "runOnSave"):
        assert profile["server"][key] == laptop["server"][key]


def test_neither_config_lets_watchdog_watch_the_installed_tree():
    """Watchdog's recursive watch over a repository holding its .venv spins a core while the app is
    idle, and polling slows every shutdown: neither config watches source files."""
    assert load(LAPTOP)["server"]["fileWatcherType"] == "none"
    assert load(PROFILE)["server"]["fileWatcherType"] == "none"


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


def dockerfile() -> str:
    """The Dockerfile with its continued lines joined."""
    return (ROOT / "Dockerfile").read_text(encoding="utf-8").replace("\\\n", " ")


def constraints() -> dict[str, str]:
    """constraints.txt as normalised name -> pinned version."""
    pins = {}
    for line in CONSTRAINTS.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.split("==")
            assert canonicalize_name(name) not in pins, f"{name} is pinned twice"
            pins[canonicalize_name(name)] = version.strip()
    return pins


def test_dockerfile_serves_through_the_launcher_with_the_profile():
    """The image serves what a venv host serves, and its health check asks the port the app listens on."""
    text = dockerfile()
    assert '\nCMD ["python", "-m", "streamlit", "run", "deploy/serve.py"]' in text
    assert "COPY deploy ./deploy" in text and "COPY .streamlit/config.toml ./.streamlit/config.toml" in text
    port = load(PROFILE)["server"]["port"]
    assert re.search(rf"^ENV .*STREAMLIT_SERVER_PORT={port}\b", text, flags=re.MULTILINE)
    health = r"^HEALTHCHECK .*127\.0\.0\.1:\$\{STREAMLIT_SERVER_PORT\}/_stcore/health"
    assert re.search(health, text, flags=re.MULTILINE)


def test_dockerfile_installs_every_package_pinned():
    text = dockerfile()
    workdir = re.findall(r"^WORKDIR\s+(\S+)", text, flags=re.MULTILINE)[-1]
    assert f"PIP_CONSTRAINT={workdir}/constraints.txt" in text
    assert re.search(r"^COPY constraints.txt ", text, flags=re.MULTILINE)
    torch = re.search(r"^ARG TORCH=torch==(\S+)$", text, flags=re.MULTILINE)
    assert torch and constraints()["torch"] == torch.group(1)
    assert '--no-deps "$TORCH" --index-url "$TORCH_INDEX_URL"' in text


def test_the_image_keeps_the_load_test():
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    assert not {"scripts", "scripts/", "tests"} & set(ignored)
    assert {"!tests/__init__.py", "!tests/helpers.py"} <= set(ignored)


def test_a_secrets_file_beside_either_config_stays_out_of_git():
    """With the launcher Streamlit also reads deploy/.streamlit/secrets.toml: git must ignore it too."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    for secrets in (".streamlit/secrets.toml", "deploy/.streamlit/secrets.toml"):
        found = subprocess.run(["git", "check-ignore", "--no-index", "-q", secrets], cwd=ROOT, check=False)
        assert found.returncode == 0, f"{secrets} is not git-ignored"


def test_constraints_pin_every_dependency_within_pyproject():
    """Every requirement of pyproject (dev tools, streamlit's [auth] extra) is pinned, inside its range."""
    project = load(ROOT / "pyproject.toml")["project"]
    wanted = [Requirement(line) for line in project["dependencies"] + project["optional-dependencies"]["dev"]]
    extras = [
        Requirement(line)
        for line in metadata.requires("streamlit") or []
        if "extra ==" in line and Requirement(line).marker.evaluate({"extra": "auth"})
    ]
    assert extras, "streamlit's [auth] extra names no package"
    pins = constraints()
    for requirement in wanted + extras:
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement.name} is not pinned in constraints.txt"
        assert requirement.specifier.contains(pins[name], prereleases=True), f"{requirement} vs {pins[name]}"


# Packages whose test ids, class names and private APIs the page scripts rely on: a minor release
# may rename them, so pyproject allows no minor release newer than the one tested.
INTERNALS_USED = ("streamlit", "streamlit-drawable-canvas")


@pytest.mark.parametrize("package", INTERNALS_USED)
def test_pyproject_stops_below_the_next_minor_release_of_what_the_pages_reach_into(package):
    """The tested version is allowed, the next minor release is not."""
    project = load(ROOT / "pyproject.toml")["project"]
    requirements = [Requirement(line) for line in project["dependencies"]]
    requirement = next(found for found in requirements if canonicalize_name(found.name) == package)
    major, minor = (int(part) for part in constraints()[package].split(".")[:2])
    assert requirement.specifier.contains(constraints()[package])
    assert not requirement.specifier.contains(f"{major}.{minor + 1}.0"), f"{requirement} has no upper bound"


def test_ci_runs_the_readme_test_command_verbatim():
    command = readme_command("Test it")
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert command in ci_lines
    assert command.startswith("python3 -m venv .venv && ")


def pip_installs(command: str) -> list[str]:
    """The `pip install` steps of a shell command line."""
    return [step.strip() for step in re.split(r"&&|\n", command) if re.search(r"\bpip install\b", step)]


def test_the_readme_and_ci_install_the_tested_set():
    """Every pip install of the README's run and test commands and of .ci/run takes constraints.txt, so
    people install the versions the suite passed with; torch's version, too, comes from that file only."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    run_it = text.split("## Run it\n", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```bash\n(.*?)```", run_it, flags=re.DOTALL) + [readme_command("Test it")]
    commands.append((ROOT / ".ci" / "run").read_text(encoding="utf-8"))
    installs = [step for command in commands for step in pip_installs(command)]
    assert len(installs) >= 5  # Run it: CPU torch, the app; GPU: the app; Test it; .ci/run's torch
    for step in installs:
        assert " -c constraints.txt " in f" {step} ", step
        assert not re.search(r"\btorch\s*[=<>~!]", step), f"{step}: torch's version is constraints.txt's"


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


def test_the_hosting_guides_commands_install_the_tested_set_and_the_cpu_build_without_a_gpu():
    """Each shell block of the hosting guide that installs linecnn takes constraints.txt, and one run as
    written on a machine without a GPU installs torch's CPU build before the app (never the 3 GB one)."""
    text = (ROOT / "docs" / "hosting.md").read_text(encoding="utf-8")
    blocks = [block for block in re.findall(r"```bash\n(.*?)```", text, flags=re.DOTALL) if "-e ." in block]
    assert len(blocks) >= 2  # trying it on one's own machine, and a plain Linux GPU server
    for block in blocks:
        installs = pip_installs(block)
        assert all(" -c constraints.txt " in f" {step} " for step in installs), installs
        cpu = [n for n, step in enumerate(installs) if "download.pytorch.org/whl/cpu" in step]
        app = [n for n, step in enumerate(installs) if step.rstrip().endswith("-e .")]
        assert cpu and app and cpu[0] < app[0], block
        assert "nvidia-smi" in installs[cpu[0]], "the CPU build is taken only where no GPU answers"
