"""The toolwire pytest plugin, run with pytester against a live mock."""

import json
import textwrap

pytest_plugins = ["pytester"]

INNER = textwrap.dedent(
    '''
    import json, os, urllib.error, urllib.request
    import pytest

    def chat(messages):
        req = urllib.request.Request(
            os.environ["OPENAI_BASE_URL"] + "/chat/completions",
            data=json.dumps({"model": "gpt-4o-mini", "messages": messages}).encode(),
            headers={"Content-Type": "application/json", "Authorization": "Bearer " + os.environ["OPENAI_API_KEY"]},
        )
        try:
            with urllib.request.urlopen(req) as resp:
                return resp.status, resp.headers.get("X-Toolwire-Rule")
        except urllib.error.HTTPError as err:
            return err.code, err.headers.get("X-Toolwire-Rule")

    HELLO = [{"role": "user", "content": "Hello"}]
    ORPHAN = [{"role": "user", "content": "Weather?"}, {"role": "tool", "tool_call_id": "call_missing", "content": "22"}]

    def test_clean(toolwire):
        assert os.environ["OPENAI_BASE_URL"] == toolwire.server.url + "/v1"
        assert os.environ["ANTHROPIC_BASE_URL"] == toolwire.server.url
        assert os.environ["GOOGLE_GEMINI_BASE_URL"] == toolwire.server.url
        assert os.environ["GEMINI_API_KEY"] == toolwire.key
        assert chat(HELLO)[0] == 200
        journal = toolwire.journal()
        assert [e["path"] for e in journal] == ["/v1/chat/completions"]
        assert toolwire.violations() == []

    def test_app_ignores_the_400(toolwire):
        chat(ORPHAN)  # the violation alone must fail this test

    @pytest.mark.toolwire_allow_violations
    def test_error_handling_may_break_rules(toolwire):
        status, rule = chat(ORPHAN)
        assert status == 400
        assert rule in [v.rule for v in toolwire.must_violations()]

    def test_scenarios(toolwire):
        toolwire.set_scenario("single-call")
        with pytest.raises(RuntimeError, match="404"):
            toolwire.set_scenario("no-such-scenario")
    '''
)


def test_plugin_fails_only_the_test_that_broke_a_rule(pytester):
    pytester.makepyfile(test_app=INNER)
    result = pytester.runpytest_subprocess("-p", "toolwire_pytest.plugin", "-p", "no:cacheprovider", "-rf")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*test_app_ignores_the_400*",
            '*toolwire: session "*test-app-ignores-the-400-*" broke * MUST rule(s):*',
            "*openai-chat.* at messages*: *",
        ]
    )
