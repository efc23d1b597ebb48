import { EventEmitter } from "eventemitter3";

export const SECRET_EVENT_TYPES = ["secret:create", "secret:update", "secret:delete", "secret:import-mutation"] as const;
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
    }
  | {
      projectId: string;
      projectType: string;
      eventType: "secret:import-mutation";
      payload: SecretLocation;
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
