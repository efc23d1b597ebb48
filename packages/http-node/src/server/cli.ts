#!/usr/bin/env node
// The server alone, configured by environment variables only; `strongroom serve` (packages/cli)
// is the same with flags. Loaded inside the hold, so that loading the server's modules counts.
import { withYoungGenerationHeld } from "./start-heap.js";

void withYoungGenerationHeld(async () => (await import("./run.js")).runServer(process.env));
