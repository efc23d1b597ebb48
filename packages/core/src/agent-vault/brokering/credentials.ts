import { z } from "zod";
import { BadRequestError } from "../../kernel/errors.js";
import { headerNameProblem } from "./http-header.js";

/**
 * Credentials of a proxied service: what the agent proxy attaches to brokered requests and where
 * its value comes from (DESIGN.md §7). The schema checks shapes (422); `validateCredentials`
 * checks the rules that span fields and credentials (400).
 */
export const CREDENTIAL_ROLES = ["header-rewrite", "credential-substitution"] as const;
export const HEADER_PURPOSES = ["username", "password"] as const;
export const SUBSTITUTION_SURFACES = ["header", "path", "query", "body"] as const;

export type CredentialRole = (typeof CREDENTIAL_ROLES)[number];
export type HeaderPurpose = (typeof HEADER_PURPOSES)[number];
export type SubstitutionSurface = (typeof SUBSTITUTION_SURFACES)[number];

export const MAX_CREDENTIALS_PER_SERVICE = 50;
/** Short placeholders would also match unrelated text and put the secret where it does not belong. */
export const MIN_PLACEHOLDER_LENGTH = 8;

// Null and "" are accepted as "not set" so a credential read back from the API can be sent again.
const optionalText = (max: number) => z.string().max(max).nullish();

export const credentialInputSchema = z.object({
  role: z.enum(CREDENTIAL_ROLES).nullish(),
  secretKey: optionalText(255),
  dynamicSecretName: optionalText(255),
  dynamicSecretField: optionalText(255),
  headerName: optionalText(255),
  headerPrefix: optionalText(255),
  headerPurpose: z.enum(HEADER_PURPOSES).nullish(),
  placeholderKey: optionalText(255),
  placeholderValue: optionalText(255),
  substitutionSurfaces: z.array(z.enum(SUBSTITUTION_SURFACES)).max(SUBSTITUTION_SURFACES.length * 2).nullish(),
});

export const credentialsInputSchema = z.array(credentialInputSchema).min(1).max(MAX_CREDENTIALS_PER_SERVICE);

export type CredentialInput = z.infer<typeof credentialInputSchema>;

/** A validated credential: role resolved, fields foreign to the role null, surfaces deduplicated. */
export interface CredentialDefinition {
  role: CredentialRole;
  secretKey: string | null;
  dynamicSecretName: string | null;
  dynamicSecretField: string | null;
  /** Null for the halves of Basic auth (`headerPurpose` set), which always go to Authorization. */
  headerName: string | null;
  headerPrefix: string | null;
  headerPurpose: HeaderPurpose | null;
  /** The name the agent knows the placeholder by. */
  placeholderKey: string | null;
  /** The literal the agent writes where the secret belongs; the proxy replaces it. */
  placeholderValue: string | null;
  substitutionSurfaces: SubstitutionSurface[];
}

interface Problem {
  index: number;
  message: string;
}
type Report = (index: number, message: string) => void;

const HEADER_FIELDS = ["headerName", "headerPrefix", "headerPurpose"] as const;
const SUBSTITUTION_FIELDS = ["placeholderKey", "placeholderValue", "substitutionSurfaces"] as const;
// Printable ASCII, no leading or trailing space: the prefix is joined to the value with one space.
const HEADER_PREFIX = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;
// URL-unreserved characters read the same in a header, a path, a query, JSON and a form, so one
// literal can be found on every surface without decoding.
const PLACEHOLDER = /^[A-Za-z0-9._~-]+$/;
const CONTROL_CHARACTER = /[\x00-\x1f\x7f]/;

/**
 * Checks a service's whole credential collection and returns it normalised. Throws one
 * `BadRequestError` listing every problem, each prefixed `credentials[i]:`.
 */
export function validateCredentials(credentials: readonly CredentialInput[]): CredentialDefinition[] {
  const problems: Problem[] = [];
  const report: Report = (index, message) => problems.push({ index, message });
  const definitions = credentials.map((input, index) => defineCredential(input, (message) => report(index, message)));
  checkHeaderOwnership(definitions, report);
  checkPlaceholders(definitions, report);
  if (problems.length > 0) {
    problems.sort((a, b) => a.index - b.index);
    const message = problems.map((p) => `credentials[${p.index}]: ${p.message}`).join("; ");
    throw new BadRequestError(message, { problems });
  }
  return definitions;
}

function defineCredential(input: CredentialInput, report: (message: string) => void): CredentialDefinition {
  const given = normalizeBlanks(input);
  const role = input.role ?? (SUBSTITUTION_FIELDS.some((field) => given[field] !== null) ? "credential-substitution" : "header-rewrite");
  const foreign = role === "header-rewrite" ? SUBSTITUTION_FIELDS : HEADER_FIELDS;
  for (const field of foreign) {
    if (given[field] !== null) report(`${field} does not apply to role ${role}`);
  }
  checkValueSource(given, report);
  const definition: CredentialDefinition = {
    role,
    secretKey: given.secretKey,
    dynamicSecretName: given.dynamicSecretName,
    dynamicSecretField: given.dynamicSecretField,
    headerName: null,
    headerPrefix: null,
    headerPurpose: null,
    placeholderKey: null,
    placeholderValue: null,
    substitutionSurfaces: [],
  };
  return role === "header-rewrite"
    ? { ...definition, ...defineHeaderRewrite(given, report) }
    : { ...definition, ...defineSubstitution(given, report) };
}

type GivenFields = ReturnType<typeof normalizeBlanks>;

function normalizeBlanks(input: CredentialInput) {
  const text = (value: string | null | undefined) => (value === undefined || value === null || value === "" ? null : value);
  const surfaces = input.substitutionSurfaces ?? [];
  return {
    secretKey: text(input.secretKey),
    dynamicSecretName: text(input.dynamicSecretName),
    dynamicSecretField: text(input.dynamicSecretField),
    headerName: text(input.headerName),
    headerPrefix: text(input.headerPrefix?.trim()),
    headerPurpose: input.headerPurpose ?? null,
    placeholderKey: text(input.placeholderKey),
    placeholderValue: text(input.placeholderValue),
    substitutionSurfaces: surfaces.length > 0 ? [...new Set(surfaces)] : null,
  };
}

function checkValueSource(given: GivenFields, report: (message: string) => void): void {
  const dynamic = given.dynamicSecretName !== null || given.dynamicSecretField !== null;
  if (given.secretKey !== null && dynamic) {
    report("takes its value from secretKey or from dynamicSecretName + dynamicSecretField, not both");
  } else if (dynamic && (given.dynamicSecretName === null || given.dynamicSecretField === null)) {
    report("dynamicSecretName and dynamicSecretField must be given together");
  } else if (given.secretKey === null && !dynamic) {
    report("needs a value source: secretKey, or dynamicSecretName + dynamicSecretField");
  }
}

function defineHeaderRewrite(given: GivenFields, report: (message: string) => void): Partial<CredentialDefinition> {
  if (given.headerPurpose !== null) {
    if (given.headerName !== null && given.headerName.toLowerCase() !== "authorization") {
      report(`headerPurpose ${given.headerPurpose} always sets Authorization (Basic), not "${given.headerName}"`);
    }
    if (given.headerPrefix !== null) report("headerPrefix does not apply to Basic auth, whose prefix is always Basic");
    return { headerPurpose: given.headerPurpose };
  }
  if (given.headerName === null) {
    report("role header-rewrite needs headerName, or headerPurpose username/password for Basic auth");
  } else {
    const problem = headerNameProblem(given.headerName);
    if (problem) report(problem);
  }
  if (given.headerPrefix !== null && !HEADER_PREFIX.test(given.headerPrefix)) {
    report("headerPrefix must be printable ASCII");
  }
  return { headerName: given.headerName, headerPrefix: given.headerPrefix };
}

function defineSubstitution(given: GivenFields, report: (message: string) => void): Partial<CredentialDefinition> {
  if (given.placeholderKey === null) report("role credential-substitution needs placeholderKey");
  else if (CONTROL_CHARACTER.test(given.placeholderKey)) report("placeholderKey must not contain control characters");
  if (given.placeholderValue === null) {
    report("role credential-substitution needs placeholderValue");
  } else if (given.placeholderValue.length < MIN_PLACEHOLDER_LENGTH || !PLACEHOLDER.test(given.placeholderValue)) {
    report(
      `placeholderValue must be at least ${MIN_PLACEHOLDER_LENGTH} characters of letters, digits, "-", ".", "_" and "~"`,
    );
  }
  if (given.substitutionSurfaces === null) {
    report(`role credential-substitution needs substitutionSurfaces, some of ${SUBSTITUTION_SURFACES.join(", ")}`);
  }
  return {
    placeholderKey: given.placeholderKey,
    placeholderValue: given.placeholderValue,
    substitutionSurfaces: given.substitutionSurfaces ?? [],
  };
}

/** One credential per header, case-insensitively; the two halves of Basic auth count as one Authorization. */
function checkHeaderOwnership(definitions: readonly CredentialDefinition[], report: Report): void {
  const owners = new Map<string, number>();
  const claim = (header: string, index: number) => {
    const owner = owners.get(header.toLowerCase());
    if (owner === undefined) owners.set(header.toLowerCase(), index);
    else report(index, `header ${header} is already set by credentials[${owner}]`);
  };
  const halves: Record<HeaderPurpose, number[]> = { username: [], password: [] };
  definitions.forEach((definition, index) => {
    if (definition.role !== "header-rewrite") return;
    if (definition.headerPurpose === null) {
      if (definition.headerName !== null) claim(definition.headerName, index);
      return;
    }
    const half = halves[definition.headerPurpose];
    half.push(index);
    if (half.length > 1) report(index, `Basic auth takes one ${definition.headerPurpose}; credentials[${half[0]}] is already it`);
    if (halves.username.length + halves.password.length === 1) claim("Authorization", index);
  });
  const [username] = halves.username;
  const [password] = halves.password;
  if (username !== undefined && password === undefined) report(username, "Basic auth needs a password credential too");
  if (password !== undefined && username === undefined) report(password, "Basic auth needs a username credential too");
}

function checkPlaceholders(definitions: readonly CredentialDefinition[], report: Report): void {
  const seen: { index: number; key: string | null; value: string | null }[] = [];
  definitions.forEach((definition, index) => {
    if (definition.role !== "credential-substitution") return;
    const { placeholderKey: key, placeholderValue: value } = definition;
    for (const earlier of seen) {
      if (key !== null && key === earlier.key) report(index, `placeholderKey "${key}" is already used by credentials[${earlier.index}]`);
      if (value === null || earlier.value === null) continue;
      if (value === earlier.value) {
        report(index, `placeholderValue "${value}" is already used by credentials[${earlier.index}]`);
      } else if (value.includes(earlier.value) || earlier.value.includes(value)) {
        report(index, `placeholderValue "${value}" and that of credentials[${earlier.index}] contain one another`);
      }
    }
    seen.push({ index, key, value });
  });
}
