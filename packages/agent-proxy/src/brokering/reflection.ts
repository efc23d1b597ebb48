import type { BrokerDecision } from "../control/control-plane.js";

/**
 * What the proxy keeps out of the answers it forwards for a brokered request: the values it
 * injected into that request, as an upstream that echoes requests (a debugging endpoint, an error
 * page quoting the Authorization header, an API that returns the body it got) would hand them back.
 * Each value is looked for as sent and in the encodings an echo is commonly wrapped in, and every
 * occurrence is overwritten byte for byte with `*`, so lengths (and Content-Length) stay right.
 *
 * This cannot catch a value the upstream transforms in other ways (hashed, reversed, split, in
 * another encoding, compressed by the application itself), nor what the credential lets the
 * upstream do on the agent's behalf: the README states that limit.
 */

/** Shorter values are not scrubbed: masking every occurrence of a three-letter string would garble answers. */
export const MIN_FORM_BYTES = 4;

type Credentials = BrokerDecision["credentials"];

/** The values written into the request: each header value, Basic's password and pair, each substituted value. */
export function injectedValues(credentials: Credentials): string[] {
  const values: string[] = [];
  let username: string | undefined;
  let password: string | undefined;
  for (const { credential, value } of credentials) {
    if (credential.role === "header-rewrite" && credential.headerPurpose === "username") username = value;
    else if (credential.role === "header-rewrite" && credential.headerPurpose === "password") password = value;
    else values.push(value);
  }
  // The user name alone is an identifier the agent may well know; the password and the pair are not.
  if (password !== undefined) {
    values.push(password);
    if (username !== undefined) {
      const pair = `${username}:${password}`;
      values.push(pair, Buffer.from(pair, "utf8").toString("base64"));
    }
  }
  return values;
}

/** Every byte pattern the scrubber masks for these credentials, longest first. */
export function reflectionForms(credentials: Credentials): Buffer[] {
  const values = injectedValues(credentials).filter((value) => Buffer.byteLength(value, "utf8") >= MIN_FORM_BYTES);
  const total = values.reduce((sum, value) => sum + Buffer.byteLength(value, "utf8"), 0);
  // Long values (a PEM key) would make the nested forms costly; their first-level forms remain.
  const nested = total <= MAX_NESTED_VALUE_BYTES;
  const forms = new Set<string>();
  for (const value of values) for (const form of encodedForms(value, nested)) forms.add(form);
  return [...forms].map((form) => Buffer.from(form, "latin1")).sort((a, b) => b.length - a.length);
}

/** Above this many bytes of injected values, forms nested two encodings deep are left out. */
export const MAX_NESTED_VALUE_BYTES = 4096;

/**
 * The value's forms as latin1 strings of their bytes (one character per byte). First the value as
 * text: UTF-8, Latin-1 where it fits (as header values travel), percent-encoded (upper and lower
 * hex, `encodeURI`, form encoding), JSON-escaped (plain and \u-escaped) and HTML-escaped. Then
 * each of those in base64 and base64url at every alignment, once more percent-encoded and once
 * more JSON-escaped: an echo often wraps a whole request that already carries an encoded value
 * (a base64 dump of a URL with a percent-encoded query, a JSON string holding a JSON body).
 */
export function encodedForms(value: string, nested = true): string[] {
  const text = textForms(value);
  const forms = new Set(text);
  for (const form of text) {
    for (const run of base64Runs(Buffer.from(form, "latin1"))) forms.add(run).add(run.replaceAll("+", "-").replaceAll("/", "_"));
    if (!nested) continue;
    // JSON.stringify leaves characters above 0x7f alone, so on a latin1 string it escapes bytes as a JSON encoder escapes text.
    forms.add(percentEncodeBytes(Buffer.from(form, "latin1"))).add(JSON.stringify(form).slice(1, -1));
  }
  return [...forms];
}

function textForms(value: string): string[] {
  const forms = [utf8AsLatin1(value)];
  if (/^[\x00-\xff]*$/.test(value)) forms.push(value);
  const percent = uriEncoded(encodeURIComponent, value);
  const formEncoded = new URLSearchParams({ v: Buffer.from(value, "utf8").toString("utf8") }).toString().slice(2);
  forms.push(percent, lowerHexEscapes(percent), formEncoded, uriEncoded(encodeURI, value));
  const json = JSON.stringify(value).slice(1, -1);
  const asciiJson = json.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  forms.push(utf8AsLatin1(json), asciiJson, asciiJson.replace(/[<>&']/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`));
  forms.push(utf8AsLatin1(value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!)));
  return forms;
}

/** encodeURIComponent's output, byte by byte: what percent-encoding an already encoded text gives. */
function percentEncodeBytes(bytes: Buffer): string {
  let out = "";
  for (const byte of bytes) out += UNRESERVED.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  return out;
}

const UNRESERVED = /^[A-Za-z0-9\-_.!~*'()]$/;

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** A lone surrogate has no percent-encoding (URIError); the UTF-8 encoder's replacement is what would travel. */
const uriEncoded = (encode: (text: string) => string, value: string) => encode(Buffer.from(value, "utf8").toString("utf8"));
const utf8AsLatin1 = (text: string) => Buffer.from(text, "utf8").toString("latin1");
const lowerHexEscapes = (text: string) => text.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase());

/**
 * Inside a longer base64 text the value's encoding depends on where it starts modulo 3. For each
 * offset, the characters that only the value's own bits decide: the first and last characters of
 * a run also carry bits of neighbouring bytes and are left out.
 */
export function base64Runs(bytes: Buffer): string[] {
  const runs: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
    const start = Math.ceil((offset * 8) / 6);
    const end = Math.floor(((offset + bytes.length) * 8) / 6);
    if (end > start) runs.push(encoded.slice(start, end));
  }
  return runs;
}

const MASK = 0x2a; // "*"
const EMPTY = Buffer.alloc(0);

/**
 * Every form at once, in one pass over the bytes (Aho–Corasick): the cost per byte does not grow
 * with the number of forms, and the automaton's state after a chunk says how much of its tail
 * could still be the start of a form, which is exactly what must be held back.
 */
export class FormAutomaton {
  /** Transitions out of the root, dense: most bytes of an answer start nothing. */
  readonly #root = new Int32Array(256);
  readonly #children: Map<number, number>[] = [new Map()];
  readonly #fail: number[] = [0];
  /** Length of the longest form ending at this state (through its failure chain), 0 for none. */
  readonly #match: number[] = [0];
  /** Bytes to hold back in this state: the longest suffix read that a form could still continue. */
  readonly #hold: number[] = [0];
  readonly longest: number;

  constructor(forms: readonly Buffer[]) {
    const depth = [0];
    for (const form of forms) {
      let state = 0;
      for (const byte of form) {
        let next = this.#children[state]!.get(byte);
        if (next === undefined) {
          next = this.#children.length;
          this.#children.push(new Map());
          this.#fail.push(0);
          this.#match.push(0);
          this.#hold.push(0);
          depth.push(depth[state]! + 1);
          this.#children[state]!.set(byte, next);
        }
        state = next;
      }
      this.#match[state] = Math.max(this.#match[state]!, form.length);
    }
    this.longest = forms.reduce((max, form) => Math.max(max, form.length), 0);
    for (const [byte, child] of this.#children[0]!) this.#root[byte] = child;
    // Breadth first, so every failure target is complete before it is used.
    const queue = [...this.#children[0]!.values()];
    for (let at = 0; at < queue.length; at++) {
      const state = queue[at]!;
      this.#match[state] = Math.max(this.#match[state]!, this.#match[this.#fail[state]!]!);
      this.#hold[state] = this.#children[state]!.size > 0 ? depth[state]! : this.#hold[this.#fail[state]!]!;
      for (const [byte, child] of this.#children[state]!) {
        this.#fail[child] = this.step(this.#fail[state]!, byte);
        queue.push(child);
      }
    }
  }

  step(state: number, byte: number): number {
    for (;;) {
      if (state === 0) return this.#root[byte]!;
      const next = this.#children[state]!.get(byte);
      if (next !== undefined) return next;
      state = this.#fail[state]!;
    }
  }

  matchAt(state: number): number {
    return this.#match[state]!;
  }

  holdAt(state: number): number {
    return this.#hold[state]!;
  }
}

/**
 * Masks the forms in a stream of chunks. It holds back only the tail that could still be the
 * start of a form (less than the longest form), so a streamed answer such as server-sent events
 * is not delayed unless its last bytes look like the start of a secret.
 */
export class Scrubber {
  readonly #automaton: FormAutomaton;
  #state = 0;
  #held: Buffer = EMPTY;

  constructor(forms: readonly Buffer[] | FormAutomaton) {
    this.#automaton = forms instanceof FormAutomaton ? forms : new FormAutomaton(forms);
  }

  /** The bytes that can be passed on now. */
  push(chunk: Buffer): Buffer {
    const automaton = this.#automaton;
    const held = this.#held;
    let state = this.#state;
    // Most chunks hold nothing to mask: they pass on without a copy.
    let masks: number[] | undefined;
    for (let i = 0; i < chunk.length; i++) {
      state = automaton.step(state, chunk[i]!);
      const length = automaton.matchAt(state);
      if (length > 0) (masks ??= []).push(held.length + i + 1 - length, held.length + i + 1);
    }
    this.#state = state;
    let pending = held.length ? Buffer.concat([held, chunk]) : chunk;
    if (masks) {
      if (pending === chunk) pending = Buffer.from(chunk);
      for (let m = 0; m < masks.length; m += 2) pending.fill(MASK, Math.max(0, masks[m]!), masks[m + 1]!);
    }
    const hold = Math.min(automaton.holdAt(state), pending.length);
    this.#held = hold ? Buffer.from(pending.subarray(pending.length - hold)) : EMPTY;
    return pending.subarray(0, pending.length - hold);
  }

  /** What was held back, once the stream has ended (it cannot become a whole form any more). */
  end(): Buffer {
    const rest = this.#held;
    this.#held = EMPTY;
    this.#state = 0;
    return rest;
  }

  get heldBytes(): number {
    return this.#held.length;
  }
}

/**
 * One whole text (a header value, a status message), as Node hands them over: latin1, one
 * character per byte. Scanned in place; a new string is built only when something is masked.
 */
export function scrubText(text: string, automaton: FormAutomaton): string {
  let state = 0;
  let masked: string[] | undefined;
  for (let i = 0; i < text.length; i++) {
    state = automaton.step(state, text.charCodeAt(i) & 0xff);
    const length = automaton.matchAt(state);
    if (length === 0) continue;
    masked ??= [...text];
    for (let j = Math.max(0, i + 1 - length); j <= i; j++) masked[j] = "*";
  }
  return masked ? masked.join("") : text;
}
