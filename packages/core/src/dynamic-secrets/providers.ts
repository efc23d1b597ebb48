import { defineService, type Context } from "../kernel/context.js";
import { BadRequestError } from "../kernel/errors.js";
import type { DynamicSecretProvider } from "./ports.js";

/**
 * The providers one instance offers, by type: none unless the assembly was handed some
 * (`createStrongroom({ dynamicSecretProviders })`); the `strongroom` server hands it every
 * provider of `@strongroom/dynamic-secrets`.
 */
const registry = defineService<Map<string, DynamicSecretProvider>>("dynamic-secret-providers", () => new Map());

/** At assembly, before any operation runs. */
export function useDynamicSecretProviders(ctx: Context, providers: readonly DynamicSecretProvider[]): void {
  const byType = ctx.service(registry);
  for (const provider of providers) byType.set(provider.type, provider);
}

/** The provider of `type`, or a 400 naming those this server has. */
export function providerOf(ctx: Context, type: string): DynamicSecretProvider {
  const byType = ctx.service(registry);
  const provider = byType.get(type);
  if (provider) return provider;
  const offered = [...byType.keys()];
  throw new BadRequestError(
    offered.length > 0
      ? `Unknown dynamic secret provider '${type}'; this server offers ${offered.join(", ")}`
      : `This server offers no dynamic secret providers, so '${type}' is not available`,
  );
}
