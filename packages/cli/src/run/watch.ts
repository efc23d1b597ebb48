import { createParser } from "eventsource-parser";
import { open, type ServerTarget } from "../client/http.js";
import { listIfChanged, type SecretEntry, type SecretScope } from "../client/secrets.js";

export interface WatchOptions {
  readonly target: ServerTarget;
  readonly scope: SecretScope;
  /** The list's ETag when the command started, so the first check costs a 304. */
  readonly etag?: string;
  /** Between two polls when events are unavailable. */
  readonly pollIntervalMs: number;
  /** Called with the new secrets each time a check finds they changed. */
  readonly onChange: (secrets: SecretEntry[]) => void;
  readonly log: (message: string) => void;
}

const EVENTS = ["secret:create", "secret:update", "secret:delete", "secret:import-mutation"];
const MAX_BACKOFF_MS = 30_000;

/**
 * Follows a folder's secrets: over the project's event stream (SSE) when the server lets this
 * identity subscribe, else by polling the list with its ETag. Any event (an import from another
 * environment changes this folder's secrets too) triggers a check; the check's ETag makes an
 * unrelated event cost a 304. The stream has no replay, so every (re)connection checks once for
 * what happened while it was down. Returns a function that stops watching.
 */
export function watchSecrets(options: WatchOptions): () => void {
  const stopped = new AbortController();
  let etag = options.etag;
  let checking: Promise<void> | undefined;
  let again = false;

  const check = async (): Promise<void> => {
    const changed = await listIfChanged(options.target, options.scope, etag);
    if (stopped.signal.aborted || !changed) return;
    etag = changed.etag;
    options.onChange(changed.secrets);
  };
  // One check at a time; events arriving meanwhile fold into one more check after it.
  const requestCheck = (): void => {
    if (checking) {
      again = true;
      return;
    }
    checking = check()
      .catch((error: Error) => options.log(`checking for changes failed: ${error.message}`))
      .finally(() => {
        checking = undefined;
        if (again && !stopped.signal.aborted) {
          again = false;
          requestCheck();
        }
      });
  };

  const poll = async (): Promise<void> => {
    while (!stopped.signal.aborted) {
      await sleep(options.pollIntervalMs, stopped.signal);
      if (!stopped.signal.aborted) requestCheck();
    }
  };

  const follow = async (): Promise<void> => {
    let backoff = 1_000;
    let connectedBefore = false;
    while (!stopped.signal.aborted) {
      const outcome = await followStream(options, stopped.signal, () => {
        backoff = 1_000;
        if (connectedBefore) requestCheck();
        connectedBefore = true;
      }, requestCheck);
      if (stopped.signal.aborted) return;
      if (outcome === "refused") {
        options.log(`live events unavailable; checking for changes every ${options.pollIntervalMs / 1000}s`);
        return poll();
      }
      await sleep(backoff, stopped.signal);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  };

  void follow();
  return () => stopped.abort();
}

/**
 * One subscription: "refused" when the server will not stream to us (no permission for secret
 * events, an old server), "ended" when an open stream closed or failed (reconnect).
 */
async function followStream(options: WatchOptions, signal: AbortSignal, onOpen: () => void, onEvent: () => void): Promise<"refused" | "ended"> {
  let res;
  try {
    res = await open(options.target, "POST", "/api/v1/events/subscribe/project-events", {
      body: { projectId: options.scope.projectId, register: EVENTS.map((event) => ({ event })) },
      headers: { accept: "text/event-stream" },
      signal,
    });
  } catch {
    return "ended";
  }
  if (res.statusCode !== 200 || !String(res.headers["content-type"]).startsWith("text/event-stream")) {
    res.resume();
    // 5xx and 503 (too many streams, draining) are passing states: try the stream again later.
    return (res.statusCode ?? 500) >= 500 ? "ended" : "refused";
  }
  onOpen();
  const parser = createParser({
    onEvent(event) {
      if (event.event === "error") options.log(`the event stream ended: ${event.data}`);
      else onEvent();
    },
  });
  try {
    res.setEncoding("utf8");
    for await (const chunk of res) parser.feed(chunk as string);
  } catch {
    // The connection dropped: reconnect.
  }
  return "ended";
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
