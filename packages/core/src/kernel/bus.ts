import { EventEmitter } from "eventemitter3";

export const DYNAMIC_SECRET_LEASE_EVENT_TYPES = ["dynamic-secret-lease:create", "dynamic-secret-lease:renew", "dynamic-secret-lease:revoke"] as const;
export type DynamicSecretLeaseEventType = (typeof DYNAMIC_SECRET_LEASE_EVENT_TYPES)[number];

/** Every kind of project event; subscriptions register for them by name (`secret-events` permissions). */
export const SECRET_EVENT_TYPES = ["secret:create", "secret:update", "secret:delete", "secret:import-mutation", ...DYNAMIC_SECRET_LEASE_EVENT_TYPES] as const;
export type SecretEventType = (typeof SECRET_EVENT_TYPES)[number];

export interface SecretLocation {
  environment: string;
  secretPath: string;
}

/** A project event as published on the bus; SSE frames and embedded subscribers are built from it. */
export type ProjectEvent =
  | {
      projectId: string;
      projectType: string;
      eventType: "secret:create" | "secret:update" | "secret:delete";
      payload: (SecretLocation & { secretKey: string })[];
      /**
       * The tag slugs of each payload item's secret, by position: receivers are shown only names
       * they may describe, and tags decide that too. Never sent to subscribers.
       */
      itemTags?: string[][];
    }
  | {
      projectId: string;
      projectType: string;
      eventType: "secret:import-mutation";
      payload: SecretLocation;
    }
  | {
      projectId: string;
      projectType: string;
      eventType: DynamicSecretLeaseEventType;
      /** Which lease changed and until when it lives; never its credentials. */
      payload: SecretLocation & { dynamicSecretName: string; leaseId: string; expiresAt: string; status: string };
    };

/**
 * Live, once, no replay. The in-process bus is an EventEmitter; a multi-node deployment swaps in a
 * relay (PostgreSQL LISTEN/NOTIFY) that delivers every published event to every node's subscribers.
 */
export interface EventBus {
  publish(event: ProjectEvent): void;
  subscribe(listener: (event: ProjectEvent) => void): () => void;
  /** Subscribers currently attached on this node (for leak checks and metrics). */
  listenerCount(): number;
  /**
   * Why the bus cannot deliver events from other nodes right now (a relay reconnecting), or
   * undefined when it can. An in-process bus is always available.
   */
  unavailableReason?(): string | undefined;
  /**
   * Calls `listener` with a reason whenever events may have been missed by this node's
   * subscribers (a relay connection lost, a publish that failed): live delivery has a gap, and
   * subscribers must be told rather than left waiting. Returns the unsubscribe function.
   */
  onGap?(listener: (reason: string) => void): () => void;
  /**
   * Tells every other node that this one changed who may do what (a write to an access-deciding
   * table has committed), so they drop their access caches at once instead of at their TTL. A
   * relay offers it; an in-process bus has no other node to tell. Lost notices are gaps (`onGap`).
   */
  announceAccessChange?(): void;
  /** Calls `listener` when another node announces an access change. Returns the unsubscribe function. */
  onAccessChange?(listener: () => void): () => void;
  close(): Promise<void>;
}

export function createLocalBus(): EventBus & { deliverLocally(event: ProjectEvent): void } {
  const emitter = new EventEmitter();
  const deliverLocally = (event: ProjectEvent) => {
    emitter.emit("event", event);
  };
  return {
    publish: deliverLocally,
    deliverLocally,
    subscribe(listener) {
      emitter.on("event", listener);
      return () => emitter.off("event", listener);
    },
    listenerCount: () => emitter.listenerCount("event"),
    async close() {
      emitter.removeAllListeners();
    },
  };
}
