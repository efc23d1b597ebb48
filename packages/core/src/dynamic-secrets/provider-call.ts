import type { Context } from "../kernel/context.js";
import { BadRequestError, ValidationError } from "../kernel/errors.js";
import type { DynamicSecretProvider, ProviderCall } from "./ports.js";
import { providerOf } from "./providers.js";
import { openInputs } from "./sealing.js";
import type { DynamicSecretRow } from "./tables.js";
import { vetTarget } from "./target.js";

/**
 * Reading a provider's inputs and calling it. Inputs are stored as the caller sent them and read
 * through the provider's schema on every call, so defaults stay the provider's current ones.
 */

/** The inputs parsed by the provider's schema; a 422 naming each problem under `provider.inputs`. */
export function parseInputs(provider: DynamicSecretProvider, raw: unknown): unknown {
  const parsed = provider.inputs.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw new ValidationError(
    parsed.error.issues.map((issue) => ({ path: ["provider", "inputs", ...issue.path.map(String)].join("."), message: issue.message })),
  );
}

/**
 * Calls the provider with `inputs` at the address core allows; what the provider rejects with
 * becomes a 400 naming the dynamic secret and what the database said (never a password:
 * providers redact their drivers' messages).
 */
export async function callProvider<T>(
  ctx: Context,
  provider: DynamicSecretProvider,
  inputs: unknown,
  name: string,
  work: (call: ProviderCall<unknown>) => Promise<T>,
): Promise<T> {
  const target = await vetTarget(ctx, provider.endpoint(inputs));
  try {
    return await work({ inputs, target });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new BadRequestError(`Dynamic secret '${name}' (${provider.type}): ${message}`);
  }
}

/** The stored secret's provider and parsed inputs, ready for `callProvider`. */
export async function openSecret(ctx: Context, row: DynamicSecretRow): Promise<{ provider: DynamicSecretProvider; inputs: unknown }> {
  const provider = providerOf(ctx, row.type);
  return { provider, inputs: parseInputs(provider, await openInputs(ctx, row)) };
}

/** Calls the stored secret's provider (see `callProvider`). */
export async function withSecretProvider<T>(
  ctx: Context,
  row: DynamicSecretRow,
  work: (provider: DynamicSecretProvider, call: ProviderCall<unknown>) => Promise<T>,
): Promise<T> {
  const { provider, inputs } = await openSecret(ctx, row);
  return callProvider(ctx, provider, inputs, row.name, (call) => work(provider, call));
}
