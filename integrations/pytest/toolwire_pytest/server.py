"""Start `toolwire serve` on a free loopback port and read back what it saw.

Only the standard library: the plugin adds nothing to a project's
dependencies but pytest.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

ADMIN_HEADER = "X-Toolwire-Admin-Token"


@dataclass(frozen=True)
class Violation:
    rule: str
    level: str
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.rule} at {self.path or '(request)'}: {self.message}"


def toolwire_binary() -> str:
    """$TOOLWIRE_BIN, else `go build` of the checkout this package sits in
    (or $TOOLWIRE_REPO)."""
    if os.environ.get("TOOLWIRE_BIN"):
        return os.environ["TOOLWIRE_BIN"]
    repo = Path(os.environ.get("TOOLWIRE_REPO") or Path(__file__).resolve().parents[3])
    if not (repo / "cmd" / "toolwire").is_dir():
        raise RuntimeError(f"toolwire-pytest: set TOOLWIRE_BIN to a toolwire binary (no checkout at {repo} to build one from)")
    out = Path(tempfile.mkdtemp(prefix="toolwire-")) / "toolwire"
    subprocess.run(["go", "build", "-o", str(out), "./cmd/toolwire"], cwd=repo, check=True)
    return str(out)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ToolwireServer:
    """A running `toolwire serve`."""

    def __init__(self, process: subprocess.Popen, url: str, admin_token: str, log_path: str):
        self.process = process
        self.url = url
        self.admin_token = admin_token
        self.log_path = log_path

    def admin(self, method: str, path: str, body: Optional[dict] = None) -> tuple:
        """Calls the admin API; returns (status, decoded JSON or None)."""
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + "/_toolwire" + path, data=data, method=method)
        req.add_header(ADMIN_HEADER, self.admin_token)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                raw = resp.read()
                return resp.status, json.loads(raw) if raw else None
        except urllib.error.HTTPError as err:
            raw = err.read()
            try:
                return err.code, json.loads(raw)
            except ValueError:
                return err.code, raw.decode(errors="replace")

    def session(self, key: str) -> "Session":
        return Session(self, key)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class Session:
    """One mock session; the API key names it."""

    def __init__(self, server: ToolwireServer, key: str):
        self.server = server
        self.key = key
        self.allow_violations = False

    @property
    def env(self) -> Dict[str, str]:
        """The variables the official SDKs read, for this session."""
        base = self.server.url
        return {
            "OPENAI_BASE_URL": base + "/v1",
            "OPENAI_API_KEY": self.key,
            "ANTHROPIC_BASE_URL": base,
            "ANTHROPIC_API_KEY": self.key,
            "GOOGLE_GEMINI_BASE_URL": base,
            "GEMINI_API_KEY": self.key,
            # The Gemini SDKs prefer GOOGLE_API_KEY when both are set.
            "GOOGLE_API_KEY": self.key,
        }

    @property
    def base_url(self) -> str:
        return self.server.url

    @property
    def openai_base_url(self) -> str:
        return self.server.url + "/v1"

    def journal(self) -> List[Dict[str, Any]]:
        """The session's journal entries, oldest first ([] before any request)."""
        status, body = self.server.admin("GET", f"/sessions/{urllib.parse.quote(self.key, safe='')}/journal")
        if status == 404:
            return []
        if status != 200:
            raise RuntimeError(f"toolwire journal: HTTP {status}: {body}")
        return body.get("entries") or []

    def violations(self) -> List[Violation]:
        return [
            Violation(v["rule"], v["level"], v.get("path", ""), v["message"])
            for e in self.journal()
            for v in e.get("violations") or []
        ]

    def must_violations(self) -> List[Violation]:
        return [v for v in self.violations() if v.level == "MUST"]

    def assert_no_violations(self) -> None:
        bad = self.must_violations()
        if bad:
            lines = "\n  ".join(str(v) for v in bad)
            raise AssertionError(f'toolwire: session "{self.key}" broke {len(bad)} MUST rule(s):\n  {lines}')

    def set_scenario(self, name: str) -> None:
        """Script the model with a scenario ("" for the default model)."""
        status, body = self.server.admin("PUT", f"/sessions/{urllib.parse.quote(self.key, safe='')}/scenario", {"name": name})
        if status != 200:
            raise RuntimeError(f"toolwire scenario: HTTP {status}: {body}")


def start_toolwire(binary: Optional[str] = None, args: Sequence[str] = (), timeout: float = 30.0) -> ToolwireServer:
    """Starts `toolwire serve` on a free loopback port and waits for health."""
    binary = binary or toolwire_binary()
    port = _free_port()
    token = secrets.token_hex(16)
    log = tempfile.NamedTemporaryFile(prefix="toolwire-serve-", suffix=".log", delete=False)
    env = dict(os.environ, TOOLWIRE_ADMIN_TOKEN=token)
    proc = subprocess.Popen([binary, "serve", "--addr", f"127.0.0.1:{port}", *args], stdout=log, stderr=subprocess.STDOUT, env=env)
    server = ToolwireServer(proc, f"http://127.0.0.1:{port}", token, log.name)
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"toolwire serve exited with {proc.returncode}:\n{Path(log.name).read_text()}")
        try:
            with urllib.request.urlopen(server.url + "/_toolwire/health", timeout=2) as resp:
                if resp.status == 200:
                    return server
        except (urllib.error.URLError, ConnectionError, OSError):
            pass
        if time.monotonic() > deadline:
            server.stop()
            raise RuntimeError(f"toolwire serve did not answer {server.url}/_toolwire/health within {timeout}s")
        time.sleep(0.1)
