/**
 * `@strongroom/core/agent`: what the agent proxy shares with the server, so both judge a host, a
 * header, an address and a credential the same way — and the channel's schemas, so the proxy's
 * client checks the server's answers against the server's own shapes.
 */
export * from "../net/host-name.js";
export { addressRefusal, classifyAddress, type AddressClass } from "../net/address-class.js";
export * from "../agent-vault/brokering/host-pattern.js";
export * from "../agent-vault/brokering/http-header.js";
export * from "../agent-vault/brokering/traffic.js";
export * from "../agent-vault/brokering/credentials.js";
export * from "../agent-vault/brokering/substitution.js";
export * from "../agent-vault/brokering/inject.js";
export { agentProxyChannelOperations as agentChannel } from "../agent-vault/channel/operations.js";
export { open as openSealed, seal, type Sealed } from "../crypto/aead.js";
