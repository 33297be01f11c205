import type { StartOptions, ToolwireHooks } from "./index.js";
export * from "./index.js";
export declare function useToolwire(options?: StartOptions): ToolwireHooks;
