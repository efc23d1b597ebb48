export * from "./host-name.js";
export * from "./host-pattern.js";
export * from "./http-header.js";
export * from "./traffic.js";
export * from "./credentials.js";
export * from "./substitution.js";
export * from "./inject.js";
