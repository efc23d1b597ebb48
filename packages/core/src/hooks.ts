import type { HookRegistry } from "./kernel/context.js";

/**
 * Where one area acts on another's changes, registered once per instance: each line names the
 * hook an area emits (in its repository) and the handler another area runs in that transaction.
 */
export function registerHooks(hooks: HookRegistry): HookRegistry {
  return hooks;
}
