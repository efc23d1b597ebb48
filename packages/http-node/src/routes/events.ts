import { operations } from "@strongroom/core";
import { post, type Route } from "./route.js";

/** Live project events over Server-Sent Events (DESIGN.md §6). */
export const eventRoutes: readonly Route[] = [
  post("/api/v1/events/subscribe/project-events", operations.events.subscribe, { kind: "sse" }),
];
