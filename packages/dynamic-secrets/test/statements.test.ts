import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { renderTemplate, splitStatements, templateProblem } from "../src/index.js";
import { templateVariables } from "../src/templates.js";

describe("splitStatements", () => {
  it.each([
    ["one", "SELECT 1", ["SELECT 1"]],
    ["trailing semicolon and blanks", "SELECT 1;\n\n ; SELECT 2 ;", ["SELECT 1", "SELECT 2"]],
    ["a semicolon inside a literal", "CREATE USER u PASSWORD 'a;b'; SELECT 2", ["CREATE USER u PASSWORD 'a;b'", "SELECT 2"]],
    ["a doubled quote inside a literal", "SELECT 'it''s;'; SELECT 2", ["SELECT 'it''s;'", "SELECT 2"]],
    ["quoted identifiers", `DROP ROLE "a;b"; SELECT \`x;y\``, [`DROP ROLE "a;b"`, "SELECT `x;y`"]],
    ["an unterminated literal runs to the end", "SELECT 'a; b", ["SELECT 'a; b"]],
    ["nothing", " ;; ", []],
  ])("%s", (_name, script, expected) => {
    expect(splitStatements(script)).toEqual(expected);
  });

  it("gives back statements joined by semicolons, whatever their quoted content", () => {
    const literal = fc.string({ unit: fc.constantFrom("a", "b", ";", " ", "''") }).map((s) => `'${s}'`);
    const statement = fc.tuple(fc.constantFrom("SELECT", "GRANT", "DROP"), literal).map(([verb, lit]) => `${verb} ${lit}`);
    fc.assert(
      fc.property(fc.array(statement, { maxLength: 6 }), (statements) => {
        expect(splitStatements(statements.join(";\n"))).toEqual(statements);
      }),
    );
  });
});

describe("templates", () => {
  it.each([
    ["known variables", "CREATE USER {{username}} {{ password }}", undefined],
    ["an unknown variable", "DROP {{user}}", "unknown template variable {{user}}; allowed: {{username}}, {{password}}"],
    ["several unknown", "{{a}} {{b}} {{a}}", "unknown template variables {{a}}, {{b}}; allowed: {{username}}, {{password}}"],
    ["a stray brace pair", "DROP {{username}} }}", "unbalanced {{ }} in the template"],
    ["handlebars helpers are not variables", "{{#each x}}", "unknown template variable {{#each x}}; allowed: {{username}}, {{password}}"],
  ])("%s", (_name, template, problem) => {
    expect(templateProblem(template, ["username", "password"])).toBe(problem);
  });

  it("renders every occurrence, spaced or not, and inserts values raw", () => {
    expect(renderTemplate(`"{{username}}" '{{ password }}' {{username}}`, { username: "u1", password: "p-{{x}}" })).toBe(`"u1" 'p-{{x}}' u1`);
    expect(templateVariables("{{a}}{{b}}{{a}}")).toEqual(["a", "b"]);
  });

  it("refuses to render a variable it has no value for", () => {
    expect(() => renderTemplate("{{password}}", { username: "u" })).toThrow("{{password}}");
    expect(() => renderTemplate("{{constructor}}", {})).toThrow("{{constructor}}");
  });
});
