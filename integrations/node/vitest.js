// toolwire-test/vitest: `const tw = useToolwire()` at the top of a test
// file starts the mock for the file, gives every test its own session
// with the SDK variables set, and fails a test that left a MUST violation.
import { beforeAll, afterAll, beforeEach, afterEach, expect } from "vitest";
import { installHooks } from "./hooks.js";

export function useToolwire(options = {}) {
  return installHooks({ beforeAll, afterAll, beforeEach, afterEach, testName: () => expect.getState().currentTestName }, options);
}

export * from "./index.js";
