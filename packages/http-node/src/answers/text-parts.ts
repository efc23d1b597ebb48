/**
 * A big answer's text a part at a time, for work over it (hashing, sending) that hands the event
 * loop back between parts.
 */

/** Texts longer than this (UTF-16 units) are worked on in parts of about this length. */
export const TEXT_PART = 256 * 1024;

export const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The parts of `text`, in order. A part never ends between the halves of a surrogate pair: each
 * part's UTF-8 is then exactly a piece of the whole text's (a split pair would encode as two U+FFFD).
 */
export function* textParts(text: string, size = TEXT_PART): Generator<string> {
  for (let from = 0; from < text.length; ) {
    let to = Math.min(text.length, from + size);
    const last = text.charCodeAt(to - 1);
    if (to < text.length && last >= 0xd800 && last <= 0xdbff) to++;
    yield text.slice(from, to);
    from = to;
  }
}
