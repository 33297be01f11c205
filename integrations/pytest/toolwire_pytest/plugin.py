"""pytest plugin: the `toolwire` fixture.

One `toolwire serve` per test run (fixture `toolwire_server`); every test
that asks for `toolwire` gets its own session with the SDKs' base-URL and
key variables set, and fails if it leaves a MUST violation in the mock's
journal. Mark a test `@pytest.mark.toolwire_allow_violations` (or set
`toolwire.allow_violations = True`) when breaking a rule is the point.
"""

from __future__ import annotations

import hashlib
import re

import pytest

from .server import Session, start_toolwire


def pytest_addoption(parser):
    group = parser.getgroup("toolwire")
    group.addoption("--toolwire-bin", default=None, help="toolwire binary (default: $TOOLWIRE_BIN, else go build of the checkout)")
    group.addoption("--toolwire-arg", action="append", default=[], help="extra `toolwire serve` flag (repeatable), e.g. --toolwire-arg=--lenient")


def pytest_configure(config):
    config.addinivalue_line("markers", "toolwire_allow_violations: the test may leave MUST violations in the toolwire journal")


@pytest.fixture(scope="session")
def toolwire_server(request):
    """The running mock: .url, .admin(method, path), .session(key)."""
    server = start_toolwire(request.config.getoption("--toolwire-bin"), request.config.getoption("--toolwire-arg"))
    yield server
    server.stop()


def _session_key(nodeid: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", nodeid.lower()).strip("-")[-40:]
    return f"{slug}-{hashlib.sha256(nodeid.encode()).hexdigest()[:8]}"


@pytest.fixture
def toolwire(toolwire_server, request, monkeypatch) -> Session:
    """This test's mock session, with the SDK variables pointing at it."""
    session = toolwire_server.session(_session_key(request.node.nodeid))
    session.allow_violations = request.node.get_closest_marker("toolwire_allow_violations") is not None
    for name, value in session.env.items():
        monkeypatch.setenv(name, value)
    return session


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    outcome = yield
    session = getattr(item, "funcargs", {}).get("toolwire")
    if not isinstance(session, Session) or session.allow_violations or outcome.excinfo is not None:
        return
    try:
        session.assert_no_violations()
    except AssertionError as err:
        # The test body passed; the mock saw a broken request: fail the
        # test itself (not its teardown) with the rules broken.
        if hasattr(outcome, "force_exception"):
            outcome.force_exception(err)
        else:
            raise
