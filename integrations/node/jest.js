// toolwire-test/jest: the same as toolwire-test/vitest, on jest's globals.
/* global beforeAll, afterAll, beforeEach, afterEach, expect */
import { installHooks } from "./hooks.js";

export function useToolwire(options = {}) {
  return installHooks({ beforeAll, afterAll, beforeEach, afterEach, testName: () => expect.getState().currentTestName }, options);
}

export * from "./index.js";
