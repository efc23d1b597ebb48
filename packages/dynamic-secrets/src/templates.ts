/**
 * Statement templates: `{{username}}`, `{{password}}`, `{{expiration}}`, `{{database}}` replaced
 * by their values, nothing else. Handlebars (what Infisical uses) would also run helpers and
 * partials from an operator's template; a statement only ever needs plain substitution, so this
 * is a dozen lines instead of a template engine. Values are inserted raw: generated usernames and
 * passwords hold no quote, backslash or semicolon, so they cannot end a literal or a statement.
 */

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** The variable names a template uses, in order of first use. */
export function templateVariables(template: string): string[] {
  const names = new Set<string>();
  for (const match of template.matchAll(PLACEHOLDER)) names.add(match[1]!);
  return [...names];
}

/** Why the template cannot be rendered with `allowed`, or undefined when it can. */
export function templateProblem(template: string, allowed: readonly string[]): string | undefined {
  const unknown = templateVariables(template).filter((name) => !allowed.includes(name));
  if (unknown.length > 0) {
    return `unknown template variable${unknown.length > 1 ? "s" : ""} ${unknown.map((n) => `{{${n}}}`).join(", ")}; allowed: ${allowed.map((n) => `{{${n}}}`).join(", ")}`;
  }
  const stray = template.replace(PLACEHOLDER, "");
  if (stray.includes("{{") || stray.includes("}}")) return "unbalanced {{ }} in the template";
  return undefined;
}

/** The template with every placeholder replaced; throws on a variable without a value. */
export function renderTemplate(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(PLACEHOLDER, (_whole, name: string) => {
    if (!Object.hasOwn(values, name)) throw new Error(`template variable {{${name}}} has no value here`);
    return values[name]!;
  });
}
