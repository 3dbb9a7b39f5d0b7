import { readFileSync } from 'node:fs';
/**
 * The variables `modeltape run` (and `drift`) set for every process it starts, read once here:
 * the guard's preload, `openTape` and the command itself agree on them.
 */
export const RUN_VARIABLES = {
  /** The run's proxy, `http://127.0.0.1:PORT`. */
  url: 'MODELTAPE_URL',
  /** The run's mode: sessions opened under a run replay (or record) as the run does. */
  mode: 'MODELTAPE_MODE',
  /** Comma-separated provider hosts (`host` or `host:port`) no process of a replay may reach. */
  guardHosts: 'MODELTAPE_GUARD_HOSTS',
  /** The run's report file: processes append what their guard stopped and their sessions saw. */
  report: 'MODELTAPE_REPORT',
  /** `nearest` under `modeltape drift`: a session answers a miss as its nearest recording did. */
  onMiss: 'MODELTAPE_ON_MISS',
  /**
   * Under `modeltape mutate`: a JSON object from a tape's real path to the mutant copy to replay in
   * its place (`{"tape": FILE, "repeatLine": N}`), so every session and proxy of the command that
   * opens the tape replays the mutant, whose line N answers its request's retries too.
   */
  tapeSwap: 'MODELTAPE_TAPE_SWAP',
  /**
   * The upstreams the run was given (`--upstream`, the config file), as a JSON object from name to
   * URL: sessions opened inside the command forward to them too, as the run's own proxy does.
   */
  upstreams: 'MODELTAPE_UPSTREAMS',
} as const;

/** What a process learns from its environment about the run it belongs to. */
export interface RunEnvironment {
  /** The run's proxy origin, if this process runs under one. */
  proxyUrl: string | undefined;
  guardHosts: string[];
  reportFile: string | undefined;
  onMiss: 'nearest' | undefined;
  /** Under `modeltape mutate`: the tapes to replay another file in place of, by real path. */
  tapeSwap: ReadonlyMap<string, TapeSwap>;
  /** The upstreams the run was given, by name (empty when none, or outside a run). */
  upstreams: Readonly<Record<string, string>>;
}

/** A mutant replayed in place of a tape. */
export interface TapeSwap {
  tape: string;
  /** The mutated line: its answer repeats for every later call with its key (a retry gets it again). */
  repeatLine: number | undefined;
}

export function runEnvironment(env: Readonly<Record<string, string | undefined>>): RunEnvironment {
  const hosts = env[RUN_VARIABLES.guardHosts];
  return {
    proxyUrl: env[RUN_VARIABLES.url] || undefined,
    guardHosts: hosts
      ? hosts
          .split(',')
          .map((host) => host.trim())
          .filter((host) => host !== '')
      : [],
    reportFile: env[RUN_VARIABLES.report] || undefined,
    onMiss: env[RUN_VARIABLES.onMiss] === 'nearest' ? 'nearest' : undefined,
    tapeSwap: readTapeSwap(env[RUN_VARIABLES.tapeSwap]),
    upstreams: readUpstreams(env[RUN_VARIABLES.upstreams]),
  };
}

// Upstreams that do not parse are none: the session then routes by its own options and config.
function readUpstreams(value: string | undefined): Record<string, string> {
  if (!value) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
  return Object.fromEntries(Object.entries(parsed as Record<string, unknown>).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

// A swap that does not parse swaps nothing: the run that set it checks that its mutant was replayed.
function readTapeSwap(value: string | undefined): ReadonlyMap<string, TapeSwap> {
  const swaps = new Map<string, TapeSwap>();
  if (!value) return swaps;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return swaps;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return swaps;
  for (const [real, swap] of Object.entries(parsed as Record<string, unknown>)) {
    const { tape, repeatLine } = (swap ?? {}) as { tape?: unknown; repeatLine?: unknown };
    if (typeof tape === 'string') swaps.set(real, { tape, repeatLine: Number.isInteger(repeatLine) ? (repeatLine as number) : undefined });
  }
  return swaps;
}

/**
 * The run's variables as the nearest ancestor process that has them holds them: for a process
 * started with a stripped environment (the MCP SDKs' stdio clients pass a server only PATH, HOME
 * and a few others), so that it still reports to the run it is under. Linux only (/proc); empty
 * elsewhere, and when no ancestor within a few generations runs under modeltape.
 */
export function ancestorRunVariables(parent = process.ppid): Record<string, string> {
  const names = new Set<string>(Object.values(RUN_VARIABLES));
  let pid = parent;
  for (let generation = 0; generation < 4 && pid > 1; generation++) {
    let environ: string;
    let status: string;
    try {
      environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
      status = readFileSync(`/proc/${pid}/status`, 'utf8');
    } catch {
      return {};
    }
    const found: Record<string, string> = {};
    for (const entry of environ.split('\u0000')) {
      const equals = entry.indexOf('=');
      if (equals > 0 && names.has(entry.slice(0, equals))) found[entry.slice(0, equals)] = entry.slice(equals + 1);
    }
    if (found[RUN_VARIABLES.report] !== undefined) return found;
    pid = Number(/^PPid:\s*(\d+)/m.exec(status)?.[1] ?? 0);
  }
  return {};
}
