import type { Context } from "../../kernel/context.js";
import { generateMaterial } from "../algorithms/material.js";
import type { KeyAlgorithm } from "../algorithms/catalogue.js";
import type { CmekKeyRow } from "../tables.js";
import { cmekRepository } from "./repository.js";
import { nextRotationAt } from "./rotation-schedule.js";

/**
 * Makes new material the key's primary version, sealed under `dataKeyId`, and schedules the next
 * rotation from now. Undefined when the key is gone meanwhile.
 */
export async function rotateKey(ctx: Context, key: CmekKeyRow, dataKeyId: string): Promise<CmekKeyRow | undefined> {
  const material = await generateMaterial(key.algorithm as KeyAlgorithm);
  return ctx.repo(cmekRepository).rotate(key.id, dataKeyId, material, nextRotationAt(ctx.clock.now(), key.rotationIntervalDays));
}
