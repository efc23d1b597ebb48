import type { Strongroom } from "../strongroom.js";
import { settleBackgroundScans } from "../cert-manager/discovery/scan.js";
import { subscriptionsOf } from "../events/registry.js";

/** Resolves once every discovery scan the instance started in the background has finished. */
export const settleScans = (strongroom: Pick<Strongroom, "context">): Promise<void> => settleBackgroundScans(strongroom.context);

/** How many event subscriptions are open on this instance (node). */
export const openSubscriptionCount = (strongroom: Pick<Strongroom, "context">): number => subscriptionsOf(strongroom.context).size;
