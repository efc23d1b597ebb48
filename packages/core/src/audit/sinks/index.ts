export { createSink, type BufferedSink, type SinkLag, type SinkOptions, type SinkTransport } from "./stream.js";
export { createFileSink, type FileSinkOptions } from "./file-sink.js";
export { createWebhookSink, type WebhookSinkOptions } from "./webhook-sink.js";
export { SIGNATURE_HEADER, signBody, verifySignature } from "./signature.js";
export { retryDelayMs, type BackoffOptions } from "./backoff.js";
