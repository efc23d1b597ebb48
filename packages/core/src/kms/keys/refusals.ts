import { BadRequestError } from "../../kernel/errors.js";
import type { KeyUsage } from "../algorithms/catalogue.js";
import type { CmekKeyRow } from "../tables.js";

/** A disabled key refuses every operation with it until it is enabled again. */
export function refuseDisabled(key: CmekKeyRow): void {
  if (key.isDisabled) throw new BadRequestError(`The KMS key '${key.name}' is disabled`);
}

/** A key serves only its own usage: signing with an encryption key is refused, whoever asks. */
export function refuseOtherUsage(key: CmekKeyRow, usage: KeyUsage): void {
  if (key.keyUsage !== usage) throw new BadRequestError(`The KMS key '${key.name}' is for ${key.keyUsage}, not ${usage}`);
}
