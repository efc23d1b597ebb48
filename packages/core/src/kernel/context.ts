import type { Clock } from "./clock.js";
import type { StrongroomConfig } from "./config.js";
import type { KeyRing } from "../crypto/keyring.js";
import type { EventBus } from "./bus.js";
import type { Storage } from "../storage/table.js";

/** What every operation runs with. Built once by `createStrongroom`. */
export interface Context {
  readonly storage: Storage;
  readonly clock: Clock;
  readonly bus: EventBus;
  readonly keys: KeyRing;
  readonly config: StrongroomConfig;
}
