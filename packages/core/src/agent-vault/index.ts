export * from "../net/host-name.js";
export * from "./brokering/host-pattern.js";
export * from "./brokering/http-header.js";
export * from "./brokering/traffic.js";
export * from "./brokering/credentials.js";
export * from "./brokering/substitution.js";
export * from "./brokering/inject.js";
