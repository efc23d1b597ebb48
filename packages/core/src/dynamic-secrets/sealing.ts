import { open, packSealed, seal, unpackSealed } from "../crypto/aead.js";
import type { Context } from "../kernel/context.js";

/**
 * A dynamic secret's inputs (its root credentials) and a held lease's credentials, sealed
 * (AES-256-GCM) under a data key of their project and bound to their row: a sealed value copied
 * onto another row does not open. Which data key sealed it is stored beside it for rewraps.
 */
const inputsBinding = (secretId: string) => `dynamic-secret:${secretId}:inputs`;
const leaseBinding = (leaseId: string) => `dynamic-secret-lease:${leaseId}:data`;

async function sealJson(ctx: Context, dataKeyId: string, value: unknown, binding: string): Promise<string> {
  return packSealed(seal(await ctx.keys.dataKey(ctx.storage, dataKeyId), JSON.stringify(value), binding));
}

async function openJson(ctx: Context, dataKeyId: string, sealed: string, binding: string): Promise<unknown> {
  return JSON.parse(open(await ctx.keys.dataKey(ctx.storage, dataKeyId), unpackSealed(sealed), binding).toString("utf8"));
}

export const sealInputs = (ctx: Context, dataKeyId: string, secretId: string, inputs: unknown) =>
  sealJson(ctx, dataKeyId, inputs, inputsBinding(secretId));

export const openInputs = (ctx: Context, row: { id: string; sealedWith: string; sealedInputs: string }) =>
  openJson(ctx, row.sealedWith, row.sealedInputs, inputsBinding(row.id));

export const sealLeaseData = (ctx: Context, dataKeyId: string, leaseId: string, data: Readonly<Record<string, string>>) =>
  sealJson(ctx, dataKeyId, data, leaseBinding(leaseId));

export async function openLeaseData(ctx: Context, dataKeyId: string, leaseId: string, sealed: string): Promise<Record<string, string>> {
  return (await openJson(ctx, dataKeyId, sealed, leaseBinding(leaseId))) as Record<string, string>;
}
