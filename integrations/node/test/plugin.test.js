import { describe, it, expect } from "vitest";
import { useToolwire } from "../vitest.js";
import { chat, hello, orphanResult } from "./chat.js";

const tw = useToolwire();

describe("useToolwire", () => {
  it("points the SDK variables at the mock, one session per test", async () => {
    expect(process.env.OPENAI_BASE_URL).toBe(`${tw.server.url}/v1`);
    expect(process.env.ANTHROPIC_BASE_URL).toBe(tw.server.url);
    expect(process.env.GOOGLE_GEMINI_BASE_URL).toBe(tw.server.url);
    expect(process.env.OPENAI_API_KEY).toBe(tw.session.key);
    const res = await chat(hello);
    expect(res.status).toBe(200);
    const journal = await tw.session.journal();
    expect(journal).toHaveLength(1);
    expect(journal[0].path).toBe("/v1/chat/completions");
    expect(await tw.session.violations()).toEqual([]);
  });

  it("exposes the violations of a test that tests error handling", async () => {
    tw.allowViolations();
    const res = await chat(orphanResult);
    expect(res.status).toBe(400);
    const must = await tw.session.mustViolations();
    expect(must.map((v) => v.rule)).toContain(res.rule);
    await expect(tw.session.assertNoViolations()).rejects.toThrow(res.rule);
  });

  it("scripts the model with a scenario", async () => {
    await tw.session.setScenario("single-call");
    await expect(tw.session.setScenario("no-such-scenario")).rejects.toThrow(/404/);
  });
});
