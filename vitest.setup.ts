import fc from "fast-check";

// Property tests explore new inputs on every local run; in CI (CI=true) they replay one fixed
// seed so a submission's result is reproducible. FC_SEED overrides both, to replay a failure.
const seed = process.env.FC_SEED ?? (process.env.CI === "true" ? "20261122" : undefined);
if (seed !== undefined) fc.configureGlobal({ seed: Number(seed) });
