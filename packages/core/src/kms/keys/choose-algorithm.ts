import { DEFAULT_ALGORITHM, usageMismatch, type KeyAlgorithm, type KeyUsage } from "../algorithms/catalogue.js";

export interface AlgorithmChoice {
  readonly keyUsage: KeyUsage;
  readonly algorithm?: KeyAlgorithm;
  /** The name older clients (the SDK) send `algorithm` under. */
  readonly encryptionAlgorithm?: KeyAlgorithm;
}

/** The algorithm a create request asks for, or why it asks for none that fits. */
export function chooseAlgorithm(choice: AlgorithmChoice): { algorithm: KeyAlgorithm } | { problem: string } {
  if (choice.algorithm && choice.encryptionAlgorithm && choice.algorithm !== choice.encryptionAlgorithm) {
    return { problem: "algorithm and encryptionAlgorithm name different algorithms" };
  }
  const algorithm = choice.algorithm ?? choice.encryptionAlgorithm ?? DEFAULT_ALGORITHM[choice.keyUsage];
  if (!algorithm) return { problem: `Key usage ${choice.keyUsage} needs an algorithm` };
  const mismatch = usageMismatch(choice.keyUsage, algorithm);
  return mismatch ? { problem: mismatch } : { algorithm };
}

export function keyAlgorithmProblem(choice: AlgorithmChoice): string | undefined {
  const chosen = chooseAlgorithm(choice);
  return "problem" in chosen ? chosen.problem : undefined;
}
