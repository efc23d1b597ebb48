/**
 * `@strongroom/core/maintenance`: what operators' tools need beside the API: telling root keys
 * apart and checking one against a database (backup, restore), and rotating keys.
 */
export { parseRootKey, generateRootKey, rootKeyMatches, rootKeyFingerprint, RootKeyMismatchError } from "../crypto/keyring.js";
