/**
 * `@strongroom/core/audit`: streaming the audit log out of the process (a JSON-lines file, a
 * signed HTTPS webhook, or any transport behind the same bounded buffer), and what a receiver
 * needs to check a delivery's signature.
 */
export * from "../audit/sinks/index.js";
