// The per-test life cycle shared by the vitest and jest entry points: one
// mock for the file, one session per test, its MUST violations checked
// when the test ends.
import { startToolwire, sessionKeyFor, applyEnv } from "./index.js";

export function installHooks({ beforeAll, afterAll, beforeEach, afterEach, testName }, options = {}) {
  const state = { server: null, session: null, restore: null, allowViolations: false };
  beforeAll(async () => {
    state.server = await startToolwire(options);
  }, options.startTimeoutMs ?? 120000);
  afterAll(async () => {
    await state.server?.stop();
  });
  beforeEach(() => {
    state.session = state.server.session(sessionKeyFor(testName()));
    state.restore = applyEnv(state.session.env);
    state.allowViolations = false;
  });
  afterEach(async () => {
    state.restore?.();
    if (!state.allowViolations) await state.session.assertNoViolations();
  });
  return {
    /** The running mock: url, admin(path), session(key), stop(). */
    get server() {
      return state.server;
    },
    /** This test's session: env, journal(), violations(), mustViolations(), setScenario(). */
    get session() {
      return state.session;
    },
    /** Let this test end with MUST violations (a test of error handling). */
    allowViolations() {
      state.allowViolations = true;
    },
  };
}
