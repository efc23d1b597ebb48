import type { AuditVerifyResult } from "@strongroom/core/audit";

type Reason = Extract<AuditVerifyResult, { ok: false }>["firstBad"]["reason"];

/** What each verdict means for the person reading it. */
export const REASON_TEXT: Record<Reason, string> = {
  "hash-mismatch": "its content no longer matches its hash: it was edited after it was recorded",
  "broken-link": "it does not follow the entry before it: an entry before it was edited, inserted or removed",
  missing: "it is not where it belongs: deleted from the log, or moved elsewhere in it",
  "out-of-order": "it is out of place: entries were reordered, or one was inserted",
  unreadable: "its sealed metadata does not open: it was edited at rest",
  "bad-signature": "the checkpoint there is not signed by the instance's key",
  "behind-head": "the log ends before a head obtained earlier: its tail was cut off",
  "beyond-head": "the log runs past its recorded head: entries were appended behind the log's back",
};

/** One line per chain: `ok <chain> …` or `TAMPERED <chain> entry <seq> (<id>): <why>`. */
export function verdictLine(result: AuditVerifyResult): string {
  if (result.ok) {
    const head = result.head ? `, head ${result.head.seq} ${result.head.hash.slice(0, 16)}` : "";
    return `ok        ${result.chain}: ${result.checked} entries fit${head}`;
  }
  const { seq, id, reason } = result.firstBad;
  return `TAMPERED  ${result.chain}: entry ${seq}${id ? ` (${id})` : ""}: ${REASON_TEXT[reason]} [${reason}]`;
}
