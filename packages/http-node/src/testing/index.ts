/**
 * `@strongroom/http-node/testing`: a real server over a real backend for API tests (the harness
 * every API suite and the agent proxy's suites start from), and agent-proxy enrollment fixtures.
 */
export * from "./harness.js";
export * from "./agent-fixtures.js";
