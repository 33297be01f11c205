// toolwire-test: start `toolwire serve` on a free loopback port for a test
// run, point the OpenAI, Anthropic and Gemini SDKs at it through their
// environment variables, and read back what the mock saw (journal and
// violations) through its admin API.
import { spawn, execFileSync } from "node:child_process";
import { createServer } from "node:net";
import { randomBytes, createHash } from "node:crypto";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const ADMIN_HEADER = "X-Toolwire-Admin-Token";

/** A loopback port nobody listens on right now. */
function freePort() {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", fail);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => ok(port));
    });
  });
}

/**
 * The toolwire binary: $TOOLWIRE_BIN, else built with `go build` from the
 * checkout this package sits in (integrations/node → the repository root),
 * or from $TOOLWIRE_REPO.
 */
export function toolwireBinary() {
  if (process.env.TOOLWIRE_BIN) return process.env.TOOLWIRE_BIN;
  const repo = process.env.TOOLWIRE_REPO || resolve(here, "..", "..");
  if (!existsSync(join(repo, "cmd", "toolwire"))) {
    throw new Error(`toolwire-test: set TOOLWIRE_BIN to a toolwire binary (no checkout at ${repo} to build one from)`);
  }
  const out = join(mkdtempSync(join(tmpdir(), "toolwire-")), "toolwire");
  execFileSync("go", ["build", "-o", out, "./cmd/toolwire"], { cwd: repo, stdio: ["ignore", "ignore", "inherit"] });
  return out;
}

/** A MUST or SHOULD violation as the journal holds it. */
function describe(v) {
  return `${v.rule} at ${v.path || "(request)"}: ${v.message}`;
}

/** One mock session: the API key names it. */
export class Session {
  constructor(server, key) {
    this.server = server;
    this.key = key;
  }

  /** The variables the official SDKs read, for this session. */
  get env() {
    const base = this.server.url;
    return {
      OPENAI_BASE_URL: `${base}/v1`,
      OPENAI_API_KEY: this.key,
      ANTHROPIC_BASE_URL: base,
      ANTHROPIC_API_KEY: this.key,
      GOOGLE_GEMINI_BASE_URL: base,
      GEMINI_API_KEY: this.key,
      // The Gemini SDKs prefer GOOGLE_API_KEY when both are set.
      GOOGLE_API_KEY: this.key,
    };
  }

  /** The session's journal entries, oldest first ([] before any request). */
  async journal() {
    const res = await this.server.admin(`/sessions/${encodeURIComponent(this.key)}/journal`);
    if (res.status === 404) return [];
    if (!res.ok) throw new Error(`toolwire journal: HTTP ${res.status}: ${await res.text()}`);
    return (await res.json()).entries ?? [];
  }

  /** Every violation journaled, in order. */
  async violations() {
    return (await this.journal()).flatMap((e) => e.violations ?? []);
  }

  /** The MUST violations journaled, in order. */
  async mustViolations() {
    return (await this.violations()).filter((v) => v.level === "MUST");
  }

  /** Throws, naming rule, path and message of each, on any MUST violation. */
  async assertNoViolations() {
    const bad = await this.mustViolations();
    if (bad.length) {
      throw new Error(`toolwire: session "${this.key}" broke ${bad.length} MUST rule(s):\n  ${bad.map(describe).join("\n  ")}`);
    }
  }

  /** Script the model with a scenario ("" for the default model). */
  async setScenario(name) {
    const res = await this.server.admin(`/sessions/${encodeURIComponent(this.key)}/scenario`, {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name }),
    });
    if (!res.ok) throw new Error(`toolwire scenario: HTTP ${res.status}: ${await res.text()}`);
  }
}

/**
 * Start `toolwire serve` on a free loopback port and wait for its health
 * check. Extra serve flags go in `args` (e.g. ["--lenient"]).
 */
export async function startToolwire({ bin = toolwireBinary(), args = [], timeoutMs = 30000 } = {}) {
  const port = await freePort();
  const adminToken = randomBytes(16).toString("hex");
  const child = spawn(bin, ["serve", "--addr", `127.0.0.1:${port}`, ...args], {
    env: { ...process.env, TOOLWIRE_ADMIN_TOKEN: adminToken },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const url = `http://127.0.0.1:${port}`;
  const server = {
    url,
    adminToken,
    process: child,
    admin: (path, init = {}) => fetch(`${url}/_toolwire${path}`, { ...init, headers: { ...(init.headers ?? {}), [ADMIN_HEADER]: adminToken } }),
    session: (key) => new Session(server, key),
    stop: () =>
      new Promise((ok) => {
        if (child.exitCode !== null) return ok();
        child.once("exit", () => ok());
        child.kill("SIGTERM");
      }),
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`toolwire serve exited with ${child.exitCode}:\n${stderr}`);
    try {
      const res = await fetch(`${url}/_toolwire/health`);
      if (res.ok) return server;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`toolwire serve did not answer ${url}/_toolwire/health within ${timeoutMs} ms:\n${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A session key for a test name: readable, unique, never too long. */
export function sessionKeyFor(testName) {
  const slug = String(testName ?? "test").toLowerCase().replace(/[^a-z0-9]+/g, "-").slice(0, 40);
  return `${slug}-${createHash("sha256").update(String(testName)).update(randomBytes(4)).digest("hex").slice(0, 8)}`;
}

/** Sets the SDK variables in process.env; returns a function restoring them. */
export function applyEnv(vars) {
  const saved = {};
  for (const [k, v] of Object.entries(vars)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  return () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}
