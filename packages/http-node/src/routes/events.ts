import type { Route } from "./route.js";

/** Live project events over Server-Sent Events (DESIGN.md §6). */
export const eventRoutes: readonly Route[] = [
  { method: "POST", path: "/api/v1/events/subscribe/project-events", operation: "events.subscribe", kind: "sse" },
];
