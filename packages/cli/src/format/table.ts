import Table from "cli-table3";

/** A table for people reading a terminal; scripts use `--plain`. */
export function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const out = new Table({ head: [...head], style: { head: [], border: [] }, wordWrap: true });
  for (const row of rows) out.push([...row]);
  return `${out.toString()}\n`;
}
