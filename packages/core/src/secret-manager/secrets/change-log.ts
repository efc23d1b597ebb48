import type { ProjectEvent, SecretLocation } from "../../kernel/bus.js";
import type { Context } from "../../kernel/context.js";
import { importRepository } from "../imports/repository.js";

type ChangeKind = "secret:create" | "secret:update" | "secret:delete";

interface FolderChanges {
  kind: ChangeKind;
  envId: string;
  location: SecretLocation;
  /** Each changed name with its secret's tag slugs. */
  keys: Map<string, string[]>;
}

/**
 * The changes a write makes, gathered while its transaction runs and published once it has
 * committed: one event per kind and folder listing every key, then one `secret:import-mutation`
 * per folder that imports a changed one.
 */
export class SecretChangeLog {
  private readonly changes = new Map<string, FolderChanges>();
  private importMutations: SecretLocation[] = [];

  constructor(private readonly project: { id: string; type: string }) {}

  /** `tagSlugs`: the secret's tags as the change leaves them (as they were, for a deletion). */
  record(kind: ChangeKind, env: { id: string; slug: string }, secretPath: string, secretKey: string, tagSlugs: string[]): void {
    const id = `${kind}\u0000${env.id}\u0000${secretPath}`;
    let entry = this.changes.get(id);
    if (!entry) {
      entry = { kind, envId: env.id, location: { environment: env.slug, secretPath }, keys: new Map() };
      this.changes.set(id, entry);
    }
    entry.keys.set(secretKey, tagSlugs);
  }

  get isEmpty(): boolean {
    return this.changes.size === 0;
  }

  /** Reads, inside the transaction, which folders import the changed ones. */
  async resolveImporters(tx: Context): Promise<void> {
    const sources = new Map<string, { envId: string; path: string }>();
    for (const entry of this.changes.values()) {
      sources.set(`${entry.envId}\u0000${entry.location.secretPath}`, { envId: entry.envId, path: entry.location.secretPath });
    }
    this.importMutations = sources.size ? await tx.repo(importRepository).importersOf([...sources.values()]) : [];
  }

  events(): ProjectEvent[] {
    const base = { projectId: this.project.id, projectType: this.project.type };
    const events: ProjectEvent[] = [];
    for (const entry of this.changes.values()) {
      events.push({
        ...base,
        eventType: entry.kind,
        payload: [...entry.keys.keys()].map((secretKey) => ({ environment: entry.location.environment, secretPath: entry.location.secretPath, secretKey })),
        itemTags: [...entry.keys.values()],
      });
    }
    for (const location of this.importMutations) events.push({ ...base, eventType: "secret:import-mutation", payload: location });
    return events;
  }
}

/**
 * Runs a secret write in one transaction and publishes its events only after the commit: a write
 * that rolls back announces nothing.
 */
export function writeSecrets<T>(ctx: Context, project: { id: string; type: string }, write: (tx: Context, log: SecretChangeLog) => Promise<T>): Promise<T> {
  return ctx.withTransaction(async (tx) => {
    // Made per attempt: a transaction retried after a conflict records its changes afresh.
    const log = new SecretChangeLog(project);
    const value = await write(tx, log);
    if (!log.isEmpty) await log.resolveImporters(tx);
    tx.afterCommit(() => {
      for (const event of log.events()) {
        try {
          ctx.bus.publish(event);
        } catch {
          // The write has committed; a failing subscriber must not turn it into an error answer.
        }
      }
    });
    return value;
  });
}
