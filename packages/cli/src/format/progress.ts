/**
 * A progress bar on standard error when it is a terminal (nothing otherwise, so logs stay clean).
 * `update` takes done and total units; `finish` ends the line.
 */
export function progressBar(label: string, stream: NodeJS.WriteStream = process.stderr): { update(done: number, total: number): void; finish(): void } {
  if (!stream.isTTY) return { update() {}, finish() {} };
  const width = 30;
  let drawn = false;
  return {
    update(done, total) {
      const ratio = total > 0 ? Math.min(1, done / total) : 1;
      const filled = Math.round(ratio * width);
      stream.write(`\r${label} [${"#".repeat(filled)}${".".repeat(width - filled)}] ${Math.floor(ratio * 100)}% (${done}/${total})`);
      drawn = true;
    },
    finish() {
      if (drawn) stream.write("\n");
    },
  };
}
