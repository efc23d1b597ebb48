import { setFlagsFromString } from "node:v8";

const FLAG = "semi-space-growth-factor";
/** V8's default for the flag (Node 20–22). */
const DEFAULT_GROWTH = 2;

/**
 * Runs the server's start with V8's young generation held at its initial size. Loading the
 * modules and building every schema allocates a burst of objects that then live as long as the
 * process; V8 answers such a burst by growing the young generation to its maximum (two 16 MB
 * semi-spaces), which an idle server then keeps resident for nothing. Once the server listens,
 * growth is allowed again, so load grows it exactly as before. Left alone when the operator set
 * the flag themselves.
 */
export async function withYoungGenerationHeld<T>(start: () => Promise<T>): Promise<T> {
  const chosen = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((arg) => arg.includes(FLAG));
  if (chosen) return start();
  setFlagsFromString(`--${FLAG}=1`);
  try {
    return await start();
  } finally {
    setFlagsFromString(`--${FLAG}=${DEFAULT_GROWTH}`);
  }
}
