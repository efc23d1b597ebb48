#!/usr/bin/env node
// The server alone, configured by environment variables only; `strongroom serve` (packages/cli)
// is the same with flags.
import { runServer } from "./run.js";

void runServer(process.env);
