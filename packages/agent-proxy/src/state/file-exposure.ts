/**
 * Whether a file or directory holding the proxy's secrets is exposed to another OS user. Anyone
 * who can read the data directory (or the key the proxy reads from a file) can decrypt the proxy's
 * token and ask the server for credentials in clear, so the proxy refuses to start on one that
 * another user owns or can read. Pure: the caller supplies `stat`'s answer and its own uid.
 */
export interface Ownership {
  readonly uid: number;
  /** Permission bits, e.g. 0o700. */
  readonly mode: number;
}

export interface ExposureRule {
  readonly what: "data directory" | "key file";
  /** A file root owns (and the proxy was handed) is as private as one the proxy owns. */
  readonly rootMayOwn: boolean;
  readonly fix: string;
}

export const DATA_DIRECTORY: ExposureRule = { what: "data directory", rootMayOwn: false, fix: "chown it to the proxy's user and chmod 700" };
export const KEY_FILE_RULE: ExposureRule = { what: "key file", rootMayOwn: true, fix: "chmod 400 (or 600) it, owned by root or the proxy's user" };

export function exposureProblem(path: string, facts: Ownership, ownUid: number, rule: ExposureRule): string | null {
  const owner = facts.uid === ownUid || (rule.rootMayOwn && facts.uid === 0);
  if (!owner) return `the ${rule.what} ${path} is owned by uid ${facts.uid}, not by the proxy's uid ${ownUid}: ${rule.fix}`;
  const mode = facts.mode & 0o777;
  if (mode & 0o077) {
    return `the ${rule.what} ${path} is open to other users (mode ${mode.toString(8).padStart(4, "0")}): ${rule.fix}`;
  }
  return null;
}
