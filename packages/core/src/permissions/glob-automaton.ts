/**
 * A Thompson automaton for a parsed regular expression, run as a lazily built DFA: each state
 * is the set of automaton threads alive at a position, built the first time it is reached and
 * kept. Building a state visits each instruction at most once, so a match costs
 * O(instructions × input length) in the worst case and one table lookup per character once the
 * states it needs exist: no backtracking, so no pattern can stall the event loop.
 *
 * Assertions (`^`, `$`, lookaheads) make a state's successor depend on where it is: the
 * successor is looked up by character and by the assertions that hold at the next position.
 * Lookaheads must have a bounded length and no lookahead inside; each distinct body is a small
 * DFA of its own, evaluated only where a thread meets it.
 */
import { UnsupportedRegexError, lengthBounds, type CharRanges, type RegexNode } from "./glob-regex.js";

/** Counts an automaton's work, for the complexity tests (steps, not milliseconds). */
export interface StepMeter {
  steps: number;
}

// Every character step and instruction visit, across all automata; a run's meter gets its difference.
let work = 0;

const SET = 0;
const JMP = 1;
const SPLIT = 2;
const START = 3;
const END = 4;
const LOOK = 5;
const MATCH = 6;

/** The most instructions one automaton may have; larger patterns are refused. */
export const MAX_INSTRUCTIONS = 20_000;
// picomatch's own lookaheads read at most three characters ahead and come in three bodies.
const MAX_LOOKAHEAD_LENGTH = 16;
const MAX_LOOKAHEAD_INSTRUCTIONS = 256;
const MAX_LOOKAHEAD_BODIES = 8;
// What an automaton may cache (states, steps and their transition tables, counted in array
// slots) before the cache starts over, also in the middle of a run: memory stays bounded
// whatever the pattern and input, and a run that keeps starting over still does O(instructions)
// work per character.
const CACHE_BUDGET = 16_384;

const START_BIT = 1;
const END_BIT = 2;
const lookBit = (body: number): number => 4 << body;

/** A character set as an ASCII table plus flattened ranges for the rest. */
class CharSet {
  private readonly ascii = new Uint8Array(128);
  private readonly high: Int32Array;

  constructor(ranges: CharRanges) {
    const high: number[] = [];
    for (const [lo, hi] of ranges) {
      for (let c = lo; c <= Math.min(hi, 127); c++) this.ascii[c] = 1;
      if (hi > 127) high.push(Math.max(lo, 128), hi);
    }
    this.high = Int32Array.from(high);
  }

  has(c: number): boolean {
    if (c < 128) return this.ascii[c] === 1;
    const high = this.high;
    for (let i = 0; i < high.length; i += 2) if (c >= high[i] && c <= high[i + 1]) return true;
    return false;
  }
}

class Builder {
  readonly ops: number[] = [];
  readonly args: number[] = [];
  readonly alts: number[] = [];
  readonly sets: CharSet[] = [];
  readonly bodies: Automaton[] = [];
  private readonly bodyKeys: string[] = [];

  constructor(
    private readonly maxInstructions: number,
    private readonly allowLookaheads: boolean,
  ) {}

  emit(op: number, arg = 0, alt = 0): number {
    if (this.ops.length >= this.maxInstructions) throw new UnsupportedRegexError("the pattern is too complex");
    this.ops.push(op);
    this.args.push(arg);
    this.alts.push(alt);
    return this.ops.length - 1;
  }

  patch(at: number, arg: number, alt = this.alts[at]): void {
    this.args[at] = arg;
    this.alts[at] = alt;
  }

  get next(): number {
    return this.ops.length;
  }

  node(n: RegexNode): void {
    switch (n.kind) {
      case "set":
        this.sets.push(new CharSet(n.ranges));
        this.emit(SET, this.sets.length - 1);
        return;
      case "start":
        this.emit(START);
        return;
      case "end":
        this.emit(END);
        return;
      case "cat":
        for (const item of n.items) this.node(item);
        return;
      case "alt": {
        const jumps: number[] = [];
        n.options.forEach((option, i) => {
          if (i === n.options.length - 1) {
            this.node(option);
            return;
          }
          const split = this.emit(SPLIT);
          this.node(option);
          jumps.push(this.emit(JMP));
          this.patch(split, split + 1, this.next);
        });
        for (const jump of jumps) this.patch(jump, this.next);
        return;
      }
      case "repeat": {
        for (let i = 0; i < n.min; i++) this.node(n.body);
        if (n.max === Infinity) {
          const loop = this.emit(SPLIT);
          this.node(n.body);
          this.emit(JMP, loop);
          this.patch(loop, loop + 1, this.next);
          return;
        }
        const exits: number[] = [];
        for (let i = n.min; i < n.max; i++) {
          exits.push(this.emit(SPLIT));
          this.node(n.body);
        }
        for (const split of exits) this.patch(split, split + 1, this.next);
        return;
      }
      case "look": {
        if (!this.allowLookaheads) throw new UnsupportedRegexError("a lookahead inside a lookahead");
        if (lengthBounds(n.body).max > MAX_LOOKAHEAD_LENGTH) throw new UnsupportedRegexError("an unbounded lookahead");
        const key = JSON.stringify(n.body);
        let body = this.bodyKeys.indexOf(key);
        if (body < 0) {
          if (this.bodies.length >= MAX_LOOKAHEAD_BODIES) throw new UnsupportedRegexError("too many distinct lookaheads");
          this.bodies.push(Automaton.compile(n.body, { anchoredAt: true }));
          this.bodyKeys.push(key);
          body = this.bodies.length - 1;
        }
        this.emit(LOOK, body, n.negated ? 1 : 0);
        return;
      }
    }
  }
}

/** A set of threads after a character was consumed, before the assertions at the next position. */
interface Step {
  readonly pcs: Int32Array;
  /** The context bits any thread's closure can consult; 0: the successor is context-free. */
  readonly mask: number;
  only: DState | undefined;
  /** Successors by context bits (only the bits in `mask` are ever set). */
  byContext: (DState | undefined)[] | undefined;
}

/** A DFA state: the threads waiting for a character (SET instructions), or a match. */
// Every field is set at creation, so that all states (and all steps) share one object shape.
interface DState {
  readonly pcs: Int32Array;
  readonly matched: boolean;
  ascii: (Step | undefined)[] | undefined;
  high: Map<number, Step> | undefined;
}

const startsAnchored = (n: RegexNode): boolean => n.kind === "start" || (n.kind === "cat" && n.items.length > 0 && n.items[0].kind === "start");

export class Automaton {
  private readonly ops: Int32Array;
  private readonly args: Int32Array;
  private readonly alts: Int32Array;
  private readonly sets: readonly CharSet[];
  private readonly bodies: readonly Automaton[];
  /** Threads start only where the run starts (a leading `^`, or a lookahead body). */
  private readonly anchored: boolean;
  private readonly seen: Uint32Array;
  private readonly stack: Int32Array;
  private generation = 0;
  private states = new Map<string, DState>();
  private initial: Step;
  private cached = 0;
  private readonly resumed = new Map<number, Step>();
  /**
   * The ASCII characters a match can begin with away from the input's ends (the threads at the
   * start consume one of them first); undefined when a match may be empty or start elsewhere.
   */
  private readonly firstChars: Uint8Array | undefined;

  private constructor(builder: Builder, anchored: boolean) {
    this.ops = Int32Array.from(builder.ops);
    this.args = Int32Array.from(builder.args);
    this.alts = Int32Array.from(builder.alts);
    this.sets = builder.sets;
    this.bodies = builder.bodies;
    this.anchored = anchored;
    this.seen = new Uint32Array(this.ops.length);
    // A closure pushes its starting threads, then at most two successors per instruction visited.
    this.stack = new Int32Array(this.ops.length * 3 + 3);
    this.initial = this.step(Int32Array.of(0));
    this.firstChars = anchored ? this.leadingCharacters() : undefined;
  }

  private leadingCharacters(): Uint8Array | undefined {
    // Away from both ends no START or END holds, and lookaheads are not allowed in bodies.
    const state = this.close(this.initial.pcs, 0);
    if (state.matched || this.bodies.length > 0) return undefined;
    const first = new Uint8Array(128);
    for (const pc of state.pcs) for (let c = 0; c < 128; c++) if (this.sets[this.args[pc]].has(c)) first[c] = 1;
    return first;
  }

  /**
   * Compiles a tree. By default it matches anywhere in the input, as RegExp#test does;
   * `anchoredAt` (a lookahead's body) matches only at the position it is run from.
   */
  static compile(node: RegexNode, options: { anchoredAt?: boolean } = {}): Automaton {
    const anchoredAt = options.anchoredAt === true;
    const builder = new Builder(anchoredAt ? MAX_LOOKAHEAD_INSTRUCTIONS : MAX_INSTRUCTIONS, !anchoredAt);
    builder.node(node);
    builder.emit(MATCH);
    return new Automaton(builder, anchoredAt || startsAnchored(node));
  }

  get size(): number {
    return this.ops.length;
  }

  /** Whether the expression matches somewhere in `input` (RegExp#test). */
  test(input: string, meter?: StepMeter): boolean {
    const before = work;
    const matched = this.matchesFrom(input, 0, this.initial);
    if (meter) meter.steps += work - before;
    return matched;
  }

  /**
   * Like test, for an anchored expression whose first `resume` instructions (assertions of the
   * start and literal characters) are known to have consumed `input` up to `from`.
   */
  testFrom(input: string, from: number, resume: number, meter?: StepMeter): boolean {
    if (!this.anchored) throw new Error("testFrom needs an anchored expression");
    const before = work;
    let step = this.resumed.get(resume);
    if (step === undefined) this.resumed.set(resume, (step = this.step(Int32Array.of(resume))));
    const matched = this.matchesFrom(input, from, step);
    if (meter) meter.steps += work - before;
    return matched;
  }

  /**
   * Runs from `from` to the first match. Anchored: only threads that start at `from`;
   * otherwise a thread starts at every position.
   */
  private matchesFrom(input: string, from: number, initial: Step): boolean {
    const length = input.length;
    let state = this.successor(initial, input, from);
    for (let pos = from; ; pos++) {
      if (state.matched) return true;
      if (this.cached > CACHE_BUDGET) state = this.forget(state);
      if (pos >= length || (state.pcs.length === 0 && this.anchored)) return false;
      work++;
      const c = input.charCodeAt(pos);
      let next = c < 128 ? state.ascii?.[c] : state.high?.get(c);
      if (next === undefined) next = this.advance(state, c);
      state = this.successor(next, input, pos + 1);
    }
  }

  /**
   * Whether this (lookahead body) automaton matches at `pos`. Most positions are decided by the
   * character there alone: picomatch's lookaheads start with `.` or `/`.
   */
  private holdsAt(input: string, pos: number): boolean {
    if (pos > 0 && pos < input.length) {
      const c = input.charCodeAt(pos);
      if (c < 128 && this.firstChars !== undefined && this.firstChars[c] === 0) return false;
    }
    return this.matchesFrom(input, pos, this.initial);
  }

  /** Drops every cached state and transition but the state a run is in, which it returns anew. */
  private forget(current: DState): DState {
    this.states = new Map();
    this.resumed.clear();
    this.cached = 0;
    this.initial = this.step(Int32Array.of(0));
    return this.intern(current.pcs, current.matched);
  }

  /** The state after `step` at `pos`, once the assertions there are known. */
  private successor(step: Step, input: string, pos: number): DState {
    if (step.mask === 0) return (step.only ??= this.close(step.pcs, 0));
    let context = 0;
    const mask = step.mask;
    if (mask & START_BIT && pos === 0) context |= START_BIT;
    if (mask & END_BIT && pos === input.length) context |= END_BIT;
    for (let body = 0; body < this.bodies.length; body++) {
      if (mask & lookBit(body) && this.bodies[body].holdsAt(input, pos)) context |= lookBit(body);
    }
    if (step.byContext === undefined) {
      step.byContext = new Array<DState | undefined>(mask + 1);
      this.cached += mask + 1;
    }
    const byContext = step.byContext;
    return (byContext[context] ??= this.close(step.pcs, context));
  }

  /** The threads after `state` consumes `c`, plus a fresh thread when matching anywhere. */
  private advance(state: DState, c: number): Step {
    const { ops, args, sets } = this;
    const pcs: number[] = [];
    for (const pc of state.pcs) {
      work++;
      if (ops[pc] === SET && sets[args[pc]].has(c)) pcs.push(pc + 1);
    }
    if (!this.anchored) pcs.push(0);
    const step = this.step(Int32Array.from(pcs));
    if (c < 128) {
      if (state.ascii === undefined) {
        state.ascii = new Array<Step | undefined>(128);
        this.cached += 128;
      }
      state.ascii[c] = step;
    } else {
      (state.high ??= new Map()).set(c, step);
      this.cached++;
    }
    return step;
  }

  private nextGeneration(): number {
    if (this.generation === 0xffffffff) {
      this.seen.fill(0);
      this.generation = 0;
    }
    return ++this.generation;
  }

  /** A step for `pcs`, with the context bits reachable without consuming input. */
  private step(pcs: Int32Array): Step {
    const { ops, args, alts, seen, stack } = this;
    const generation = this.nextGeneration();
    let mask = 0;
    let top = 0;
    for (const pc of pcs) stack[top++] = pc;
    while (top > 0) {
      const at = stack[--top];
      if (seen[at] === generation) continue;
      seen[at] = generation;
      work++;
      const op = ops[at];
      if (op === JMP) stack[top++] = args[at];
      else if (op === SPLIT) {
        stack[top++] = alts[at];
        stack[top++] = args[at];
      } else if (op === START || op === END || op === LOOK) {
        mask |= op === START ? START_BIT : op === END ? END_BIT : lookBit(args[at]);
        stack[top++] = at + 1;
      }
    }
    this.cached += pcs.length + 1;
    return { pcs, mask, only: undefined, byContext: undefined };
  }

  /** The state reached from `pcs` without consuming input, given the assertions in `context`. */
  private close(pcs: Int32Array, context: number): DState {
    const { ops, args, alts, seen, stack } = this;
    const generation = this.nextGeneration();
    const waiting: number[] = [];
    let matched = false;
    let top = 0;
    for (let i = pcs.length - 1; i >= 0; i--) stack[top++] = pcs[i];
    while (top > 0 && !matched) {
      const at = stack[--top];
      if (seen[at] === generation) continue;
      seen[at] = generation;
      work++;
      switch (ops[at]) {
        case SET:
          waiting.push(at);
          break;
        case JMP:
          stack[top++] = args[at];
          break;
        case SPLIT:
          stack[top++] = alts[at];
          stack[top++] = args[at];
          break;
        case START:
          if (context & START_BIT) stack[top++] = at + 1;
          break;
        case END:
          if (context & END_BIT) stack[top++] = at + 1;
          break;
        case LOOK:
          if (((context & lookBit(args[at])) !== 0) !== (alts[at] === 1)) stack[top++] = at + 1;
          break;
        case MATCH:
          matched = true;
          break;
      }
    }
    return this.intern(matched ? new Int32Array(0) : Int32Array.from(waiting.sort((a, b) => a - b)), matched);
  }

  private intern(pcs: Int32Array, matched: boolean): DState {
    const key = matched ? "match" : pcs.join(",");
    let state = this.states.get(key);
    if (state === undefined) {
      this.states.set(key, (state = { pcs, matched, ascii: undefined, high: undefined }));
      this.cached += pcs.length + 1;
    }
    return state;
  }
}
