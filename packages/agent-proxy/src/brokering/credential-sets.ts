import { createHash } from "node:crypto";
import type { BrokerDecision } from "../control/control-plane.js";
import { FormAutomaton, reflectionForms } from "./reflection.js";

/**
 * What the proxy derives from a broker decision's credentials: a digest naming the set (it keys
 * the upstream connection pools) and the automaton that scrubs answers of its values. Decisions
 * are cached objects, so the digest is computed once per decision and the automaton once per
 * credential set, not per request.
 */
type Credentials = BrokerDecision["credentials"];

const digests = new WeakMap<Credentials, string>();
const automata = new Map<string, FormAutomaton | null>();
const AUTOMATA_KEPT = 64;

/** Values included, so a rotated credential is a new set; the digest never reveals them. "none" for no credentials. */
export function credentialSetOf(credentials: Credentials): string {
  if (credentials.length === 0) return "none";
  let digest = digests.get(credentials);
  if (!digest) {
    const material = JSON.stringify(credentials.map(({ credential, value }) => [credential, value]));
    digests.set(credentials, (digest = createHash("sha256").update(material).digest("base64url")));
  }
  return digest;
}

/** Null when nothing was injected (or nothing long enough to scrub): the answer is piped as it is. */
export function scrubberFor(credentials: Credentials): FormAutomaton | null {
  if (credentials.length === 0) return null;
  const key = credentialSetOf(credentials);
  let automaton = automata.get(key);
  if (automaton === undefined) {
    const forms = reflectionForms(credentials);
    automaton = forms.length ? new FormAutomaton(forms) : null;
    if (automata.size >= AUTOMATA_KEPT) automata.delete(automata.keys().next().value!);
  }
  // Least recently used goes first.
  automata.delete(key);
  automata.set(key, automaton);
  return automaton;
}
