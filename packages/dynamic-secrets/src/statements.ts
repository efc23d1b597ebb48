/**
 * Splits a script into statements at `;` — but not at one inside a quoted string or identifier
 * (`'…'`, `"…"`, `` `…` ``, with doubled quotes as escapes), so a literal holding a semicolon
 * stays whole. Blank statements are dropped. Comments are not parsed: a `;` inside one splits.
 */
export function splitStatements(script: string): string[] {
  const statements: string[] = [];
  let current = "";
  let quote: string | null = null;
  for (let i = 0; i < script.length; i++) {
    const char = script[i]!;
    if (quote !== null) {
      current += char;
      if (char === quote) {
        if (script[i + 1] === quote) {
          current += script[++i];
        } else {
          quote = null;
        }
      }
    } else if (char === "'" || char === '"' || char === "`") {
      quote = char;
      current += char;
    } else if (char === ";") {
      statements.push(current);
      current = "";
    } else {
      current += char;
    }
  }
  statements.push(current);
  return statements.map((s) => s.trim()).filter((s) => s !== "");
}
