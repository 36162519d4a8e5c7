"""The test OIDC provider (tests/oidc/provider.js) run under node, and the secrets that point at it."""

from __future__ import annotations

import json
import secrets
import shutil
import subprocess
import time
import urllib.request

from tests.helpers import ROOT, free_port, stop_process

PROVIDER_DIR = ROOT / "tests" / "oidc"
# The static client and accounts that provider.js defines.
CLIENT_ID = "linecnn-test"
CLIENT_SECRET = "linecnn-test-secret"
ACCOUNT = {"login": "ada", "name": "Ada Lovelace", "email": "ada@example.org"}
STUDENT = {"login": "grace", "name": "Grace Hopper", "email": "grace@example.org"}
START_TIMEOUT = 30.0


def node_missing_reason() -> str | None:
    """Why the provider cannot run here (no node, or its npm packages not installed), or None."""
    if shutil.which("node") is None:
        return "node is not installed (apt-get install -y nodejs npm)"
    if not (PROVIDER_DIR / "node_modules" / "oidc-provider").is_dir():
        return "the test OIDC provider's packages are missing (npm ci --prefix tests/oidc)"
    return None


class OidcProvider:
    """``node tests/oidc/provider.js`` on a free loopback port, stopped by its PID."""

    def __init__(self, app_urls: list[str]) -> None:
        self.port = free_port()
        self.issuer = f"http://127.0.0.1:{self.port}"
        self.app_urls = app_urls
        self.log_path = ROOT / "artifacts" / f"oidc-{self.port}.log"
        self.process: subprocess.Popen | None = None

    @property
    def metadata_url(self) -> str:
        return f"{self.issuer}/.well-known/openid-configuration"

    def start(self) -> OidcProvider:
        """Start node and wait until the discovery document answers."""
        self.log_path.parent.mkdir(exist_ok=True)
        script = str(PROVIDER_DIR / "provider.js")
        command = ["node", script, "--port", str(self.port)]
        for url in self.app_urls:
            command += ["--app-url", url]
        with open(self.log_path, "w") as log:
            self.process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=log)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the OIDC provider exited early; see {self.log_path}")
            try:
                with urllib.request.urlopen(self.metadata_url, timeout=2) as response:
                    if response.status == 200:
                        return self
            except OSError:
                time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"the OIDC provider did not answer in {START_TIMEOUT:.0f} s; see {self.log_path}")

    def stop(self) -> None:
        """Stop the provider we started, by its PID only."""
        stop_process(self.process)

    def secrets_toml(self, app_url: str, allowed_emails: list[str] | None = None) -> str:
        """A secrets.toml whose [auth] section signs in to this provider and returns to ``app_url``."""
        lines = [
            "[auth]",
            f'redirect_uri = "{app_url}/oauth2callback"',
            f'cookie_secret = "{secrets.token_hex(32)}"',
            f'client_id = "{CLIENT_ID}"',
            f'client_secret = "{CLIENT_SECRET}"',
            f'server_metadata_url = "{self.metadata_url}"',
            # Streamlit asks for prompt=select_account by default, which this provider does not offer.
            'client_kwargs = { prompt = "login" }',
        ]
        if allowed_emails is not None:
            lines += ["", "[linecnn]", f"allowed_emails = {json.dumps(allowed_emails)}"]
        return "\n".join(lines) + "\n"

