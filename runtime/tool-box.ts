import { pointerToPath } from '../recordings/internal.js';
import { ModeltapeError } from '../core/internal.js';
import { compileForeignSchema, createLenientValidator, nearestName, type ValidateFunction } from '../schema/internal.js';
import type { Json } from './journal-store.js';
import { checkArgumentsValue, parseToolArguments } from '../providers/internal.js';

/** What a tool does to the world, from nothing to something that cannot be undone. */
export const SIDE_EFFECT_CLASSES = ['read', 'local_mutation', 'remote_mutation', 'destructive'] as const;
export type SideEffectClass = (typeof SIDE_EFFECT_CLASSES)[number];

/** What a tool is handed while it runs. */
export interface ToolContext {
  runId: string;
  /** The step (model turn) that asked for the call. */
  step: number;
  /**
   * `<runId>/<effect key>`: the same for every attempt at this one call (a retry after an
   * interruption included). Pass it to remote APIs as an idempotency key.
   */
  operationId: string;
  /** 1 for the first try of this execution; 2, 3, … for its retries (see `Tool.retries`). */
  attempt: number;
  /** Aborted when the tool's timeout passes. */
  signal: AbortSignal;
  /** The time, as a journaled effect: replay reads the same reading back. */
  now(): Promise<number>;
  /** A new id, as a journaled effect. */
  newId(): Promise<string>;
}

/**
 * What `reconcile` found out about a call that started but whose end was never recorded:
 * `applied` with the result it had, or `not_applied` (it is then run again, once).
 */
export type Reconciliation = { status: 'applied'; result: Json } | { status: 'not_applied' };

export interface Tool {
  name: string;
  description: string;
  /** JSON Schema of the arguments; a call whose arguments do not match is refused before it runs. */
  parameters: Record<string, unknown>;
  sideEffect: SideEffectClass;
  /** @default 30000 */
  timeoutMs?: number;
  /**
   * How many times a call that timed out (or threw an error with `retryable: true`) is attempted
   * again, with the same `operationId`, while the run's retry budget lasts. @default 0
   */
  retries?: number;
  run(args: Json, context: ToolContext): Promise<Json> | Json;
  /**
   * Decides what happened to a call that was in flight when the process stopped (it started, and
   * neither its result nor its failure was recorded). Without it, such a call (of any class) waits
   * for an operator's approval of kind `interrupted_side_effect`.
   */
  reconcile?(args: Json, context: ToolContext): Promise<Reconciliation> | Reconciliation;
}

/** Whether the runtime accepts a call's arguments, and why not. */
export type Acceptance = { accepted: true; tool: Tool } | { accepted: false; reason: string };

interface Entry {
  tool: Tool;
  validate: ValidateFunction;
}

/** The tools a runtime can call, each with its arguments checked by ajv before it runs. */
export class ToolBox {
  #entries = new Map<string, Entry>();

  constructor(tools: readonly Tool[] = []) {
    for (const tool of tools) this.add(tool);
  }

  add(tool: Tool): this {
    if (this.#entries.has(tool.name)) throw new ModeltapeError('duplicate_tool', `The tool box already holds a tool named "${tool.name}".`);
    if (tool.timeoutMs !== undefined && !(Number.isFinite(tool.timeoutMs) && tool.timeoutMs > 0 && tool.timeoutMs <= 2_147_483_647)) {
      throw new ModeltapeError(
        'invalid_tool',
        `Tool "${tool.name}" has timeoutMs ${tool.timeoutMs}: expected a number of milliseconds above 0 and at most 2147483647 (about 24.8 days; Node's timers hold no more).`,
      );
    }
    if (tool.retries !== undefined && !(Number.isInteger(tool.retries) && tool.retries >= 0)) {
      throw new ModeltapeError('invalid_tool', `Tool "${tool.name}" has retries ${tool.retries}: expected a whole number, 0 or more.`);
    }
    if (!SIDE_EFFECT_CLASSES.includes(tool.sideEffect)) {
      throw new ModeltapeError(
        'invalid_tool',
        `Tool "${tool.name}" has side-effect class "${String(tool.sideEffect)}": expected one of ${SIDE_EFFECT_CLASSES.join(', ')}.`,
      );
    }
    let validate: ValidateFunction;
    try {
      validate = compileForeignSchema(createLenientValidator(), tool.parameters);
    } catch (error) {
      throw new ModeltapeError('invalid_tool', `Tool "${tool.name}" has parameters that are not a valid JSON Schema: ${(error as Error).message}`, {
        cause: error,
      });
    }
    this.#entries.set(tool.name, { tool, validate });
    return this;
  }

  get(name: string): Tool | undefined {
    return this.#entries.get(name)?.tool;
  }

  names(): string[] {
    return [...this.#entries.keys()];
  }

  tools(): Tool[] {
    return [...this.#entries.values()].map(({ tool }) => tool);
  }

  /**
   * The acceptance path every call goes through before the policy sees it: the tool exists, is
   * granted, and its arguments match its schema.
   */
  accept(name: string, args: unknown, granted?: readonly string[]): Acceptance {
    const entry = this.#entries.get(name);
    if (entry === undefined || (granted !== undefined && !granted.includes(name))) {
      const known = granted ?? this.names();
      const near = nearestName(name, known);
      return { accepted: false, reason: `unknown tool "${name}"${near ? `; did you mean "${near}"?` : ''} (available: ${known.join(', ') || 'none'})` };
    }
    const shape = checkArgumentsValue(args as Json);
    if (shape !== undefined) return { accepted: false, reason: `invalid arguments for ${name}: ${shape}` };
    if (!entry.validate(args)) {
      const problems = (entry.validate.errors ?? []).map(
        (error) => `${error.instancePath ? pointerToPath(error.instancePath) : '(arguments)'} ${error.message ?? 'is invalid'}`,
      );
      return { accepted: false, reason: `invalid arguments for ${name}: ${problems.join('; ')}` };
    }
    return { accepted: true, tool: entry.tool };
  }
}

/**
 * The same path for arguments as a model sends them (text or bytes): parsed strictly first (one
 * JSON value, UTF-8, no duplicate key, no unpaired surrogate, at most 256 levels deep).
 */
export function acceptRaw(box: ToolBox, name: string, raw: string | Uint8Array, granted?: readonly string[]): Acceptance {
  const parsed = parseToolArguments(raw);
  if (!parsed.ok) {
    const unknown = box.accept(name, {}, granted);
    if (!unknown.accepted && unknown.reason.startsWith('unknown tool')) return unknown;
    return { accepted: false, reason: `invalid arguments for ${name}: ${parsed.reason}` };
  }
  return box.accept(name, parsed.value, granted);
}
