export interface Violation {
  rule: string;
  level: "MUST" | "SHOULD";
  path?: string;
  message: string;
  status?: number;
}

export interface JournalEntry {
  seq: number;
  dialect: string;
  method: string;
  path: string;
  status: number;
  request?: unknown;
  response?: unknown;
  violations?: Violation[];
  answered_rule?: string;
}

export declare class Session {
  readonly key: string;
  readonly env: Record<string, string>;
  journal(): Promise<JournalEntry[]>;
  violations(): Promise<Violation[]>;
  mustViolations(): Promise<Violation[]>;
  assertNoViolations(): Promise<void>;
  setScenario(name: string): Promise<void>;
}

export interface ToolwireServer {
  readonly url: string;
  readonly adminToken: string;
  admin(path: string, init?: RequestInit): Promise<Response>;
  session(key: string): Session;
  stop(): Promise<void>;
}

export interface StartOptions {
  bin?: string;
  args?: string[];
  timeoutMs?: number;
  startTimeoutMs?: number;
}

export declare function startToolwire(options?: StartOptions): Promise<ToolwireServer>;
export declare function toolwireBinary(): string;
export declare function sessionKeyFor(testName: string): string;
export declare function applyEnv(vars: Record<string, string>): () => void;

export interface ToolwireHooks {
  readonly server: ToolwireServer;
  readonly session: Session;
  allowViolations(): void;
}
// useToolwire(options?: StartOptions): ToolwireHooks comes from
// "toolwire-test/vitest" or "toolwire-test/jest".
