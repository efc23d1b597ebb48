/**
 * `@strongroom/http-node/testing`: a real server over a real backend for API tests (the harness
 * every API suite and the agent proxy's suites start from), agent-proxy enrollment fixtures, and
 * certificates from a private test CA for HTTPS servers.
 */
export * from "./harness.js";
export * from "./agent-fixtures.js";
export * from "./tls.js";
