import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { compileKeyRules, type CompiledKeyRules, type TapeFileSystem, type KeyRules, type Normalizer } from '../../recordings/internal.js';
import { resolveChaos, type ChaosOptions, type ResolvedChaos } from './chaos.js';
import { ModeltapeError, checkChoice, outputText } from '../../core/internal.js';
import { RUN_VARIABLES, runEnvironment, type TapeSwap } from '../../guard/internal.js';
import { CLI_MISS_ADVICE, REPEAT_POLICIES, type MissAdvice, type RepeatPolicy } from '../../lookup/internal.js';
import { buildUpstreamTable, type Upstream } from './upstream-table.js';

/**
 * - `replay`: answers only from the tape; a request that was not recorded is an error, and no
 *   socket to any upstream is ever opened.
 * - `record`: everything goes upstream and is recorded; a request the tape already holds replaces
 *   its recording in place (see {@link ProxyOptions.append}).
 * - `auto`: replays what the tape holds and records the rest.
 * - `passthrough`: forwards everything and writes nothing.
 */
export const PROXY_MODES = ['replay', 'record', 'auto', 'passthrough'] as const;
export type ProxyMode = (typeof PROXY_MODES)[number];

/** How recorded streams are timed on replay: all at once, or with their recorded gaps. */
export const PACES = ['instant', 'recorded'] as const;
export type Pace = (typeof PACES)[number];

/** What a miss answers in replay (see {@link ProxyOptions.onMiss}). */
export const MISS_POLICIES = ['error', 'nearest'] as const;
export type MissPolicy = (typeof MISS_POLICIES)[number];

/** What replay does with a tape that does not exist (see {@link ProxyOptions.missingTape}). */
export const MISSING_TAPE_POLICIES = ['error', 'empty'] as const;
export type MissingTapePolicy = (typeof MISSING_TAPE_POLICIES)[number];

/**
 * The key of the proxy's internal file-system seam (a test makes the tape's writes fail as a full
 * disk does); the same key as the tape writer's, and exported from no entry point.
 */
export const TAPE_FILE_SYSTEM: unique symbol = Symbol.for('modeltape.internal.tapeFileSystem') as never;

/** What the proxy accepts from a client and holds for the tape. */
export interface ProxyLimits {
  /**
   * A request body over this many bytes is refused with a provider-shaped 413 before it is read
   * whole; nothing is sent upstream. @default 33554432 (32 MiB)
   */
  requestBodyBytes?: number;
  /**
   * A response body over this many bytes still reaches the client, but is not recorded (the
   * proxy stops holding it once past the limit, so memory stays bounded). @default 268435456 (256 MiB)
   */
  responseBodyBytes?: number;
  /** A client that has not sent a request's headers within this many ms gets a 408. @default 60000 */
  headersTimeoutMs?: number;
  /** A client that has not sent a whole request (headers and body) within this many ms gets a 408. @default 300000 */
  requestTimeoutMs?: number;
  /** Client connections open at once; more are closed as they arrive, with a message in the log. @default 1000 */
  maxConnections?: number;
}

export const DEFAULT_LIMITS: Readonly<Required<ProxyLimits>> = Object.freeze({
  requestBodyBytes: 32 * 1024 * 1024,
  responseBodyBytes: 256 * 1024 * 1024,
  headersTimeoutMs: 60_000,
  requestTimeoutMs: 300_000,
  maxConnections: 1000,
});

/** The flag that sets each limit, for messages. */
export const LIMIT_FLAGS: Readonly<Record<keyof ProxyLimits, string>> = {
  requestBodyBytes: '--max-request-body',
  responseBodyBytes: '--max-response-body',
  headersTimeoutMs: '--headers-timeout',
  requestTimeoutMs: '--request-timeout',
  maxConnections: '--max-connections',
};

export interface ProxyOptions {
  /** The tape file to replay from and record to. */
  tape: string;
  /** @default 'replay' */
  mode?: ProxyMode;
  /** @default '127.0.0.1' */
  host?: string;
  /** 0 picks a free port. @default 0 */
  port?: number;
  /** Adds upstreams or overrides built-in ones: `{ openai: 'http://127.0.0.1:8080' }`. */
  upstreams?: Record<string, string>;
  /** @default 'none' */
  repeat?: RepeatPolicy;
  /** @default 'instant' */
  pace?: Pace;
  /**
   * Recording is refused when the environment says CI (`CI` set to anything but empty, `0` or
   * `false`), unless this is set. @default false
   */
  allowRecordInCi?: boolean;
  /** Normalizers applied to JSON request bodies before keying. A new tape records them. */
  normalizers?: Normalizer[];
  /** Request headers that are part of the key. @default DEFAULT_KEY_HEADERS */
  keyHeaders?: string[];
  /**
   * What a miss answers in replay: `error` (a provider-shaped 400, the default) or `nearest` (the
   * nearest recording's response, so the run goes on and every drift can be collected, as
   * `modeltape drift` does). Either way the miss is counted and explained.
   * @default 'error'
   */
  onMiss?: MissPolicy;
  /**
   * In replay, a tape that does not exist is an error (`error`), or an empty tape every request
   * misses (`empty`: `modeltape run` without --tape, whose command may replay from its own tapes).
   * @default 'error'
   */
  missingTape?: MissingTapePolicy;
  /** In auto mode: when the proxy closes, drop from the tape every exchange this run did not use. @default false */
  prune?: boolean;
  /**
   * In record mode: keep the tape's recordings of a request and add this run's after them, so the
   * request replays each in turn (`--append`, `"append": true` in the config file). Without it, a
   * run's recordings of a request replace the tape's, one for one and in place, and the rest of
   * the tape stays byte for byte. Other modes never replace a recording.
   * @default false
   */
  append?: boolean;
  /** Refuse to replay a tape holding exchanges a FakeProvider answered (`source: "fake"`). @default false */
  requireLive?: boolean;
  /**
   * Chaos replay (mode replay only): inject faults (429, 5xx, a dropped connection) at exchanges
   * chosen from `seed`; the retry after a fault is answered from the tape. The summary's `chaos`
   * lists every fault and whether it fired.
   */
  chaos?: ChaosOptions;
  /** The config file the rules came from, when one was named (`--config`): a refusal's rekey command names it. */
  configFile?: string;
  /** How miss errors say to record or repeat (flags by default; `openTape` names its variable and option). */
  advice?: MissAdvice;
  /** Notes (fields starting with `_`) for the header of a tape this proxy creates. */
  tapeNotes?: Record<`_${string}`, unknown>;
  /** The environment to read `CI` from. @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** Milliseconds from an arbitrary origin; times stream frames. @default performance.now */
  clock?: () => number;
  /**
   * The wall clock whose UTC date each recorded exchange carries as `recordedAt`.
   * @default the time `SOURCE_DATE_EPOCH` names (seconds since 1970) when it is set, else now
   */
  now?: () => Date;
  /** Where warnings and refusals are reported. @default writes to stderr, keys masked and control characters escaped */
  log?: (message: string) => void;
  /** Body sizes, client timeouts and the connection cap. */
  limits?: ProxyLimits;
  /** Internal: the file operations the tape's appends go through. */
  [TAPE_FILE_SYSTEM]?: TapeFileSystem;
}

export interface ResolvedProxyOptions {
  /** The tape replayed and recorded to: under `modeltape mutate`, the mutant copy of the tape given. */
  tape: string;
  /** Under `modeltape mutate`: the real path of the tape given, which `tape` replays a mutant of. */
  swappedFrom: string | undefined;
  /** Under `modeltape mutate`: the mutated line, whose answer repeats for its request's retries. */
  repeatLine: number | undefined;
  mode: ProxyMode;
  host: string;
  port: number;
  upstreams: ReadonlyMap<string, Upstream>;
  repeat: RepeatPolicy;
  pace: Pace;
  /** The key rules to use, or undefined to take them from the tape (or the defaults). */
  keyRules: CompiledKeyRules | undefined;
  tapeNotes: Record<`_${string}`, unknown>;
  requireLive: boolean;
  chaos: ResolvedChaos | undefined;
  onMiss: MissPolicy;
  missingTape: MissingTapePolicy;
  advice: MissAdvice;
  configFile: string | undefined;
  prune: boolean;
  append: boolean;
  clock: () => number;
  now: () => Date;
  log: (message: string) => void;
  limits: Readonly<Required<ProxyLimits>>;
  tapeFileSystem: TapeFileSystem | undefined;
}

/** Recording was asked for where the environment says CI, without `--allow-record-in-ci`. */
export class RecordInCiError extends ModeltapeError {
  constructor(mode: ProxyMode, ci: string) {
    super(
      'record_in_ci',
      `Refusing to ${mode === 'auto' ? 'record misses (--mode auto)' : 'record (--mode record)'} in CI (CI=${JSON.stringify(ci)}): CI replays committed tapes and never calls a real model.\n` +
        'Record locally and commit the tape, or pass --allow-record-in-ci (allowRecordInCi: true) if this job really should record.',
    );
  }
}

/** True when `CI` is set to anything but empty, `0` or `false`. */
export function isCi(env: Readonly<Record<string, string | undefined>>): boolean {
  const value = env.CI;
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

/** Checks every option once, at the boundary. The only code in proxy/ that reads the environment. */
export function resolveProxyOptions(options: ProxyOptions): ResolvedProxyOptions {
  if (typeof options.tape !== 'string' || options.tape === '') {
    throw new ModeltapeError('tape_required', 'A tape file is required: --tape FILE (or the tape option).');
  }
  const mode = checkChoice('proxy mode', options.mode ?? 'replay', PROXY_MODES);
  const repeat = checkChoice('repeat policy', options.repeat ?? 'none', REPEAT_POLICIES);
  const pace = checkChoice('pace', options.pace ?? 'instant', PACES);
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ModeltapeError('invalid_port', `Invalid port ${JSON.stringify(options.port)}: expected an integer from 0 to 65535 (0 picks a free port)`);
  }
  if (options.prune === true && mode !== 'auto') {
    throw new ModeltapeError(
      'prune_needs_auto',
      `--prune drops the exchanges a run did not use, so it needs --mode auto (the run replays what it can and records the rest); got --mode ${mode}.`,
    );
  }
  const env = options.env ?? process.env;
  if ((mode === 'record' || mode === 'auto') && isCi(env) && options.allowRecordInCi !== true) throw new RecordInCiError(mode, env.CI!);
  const chaos = resolveChaos(options.chaos);
  if (chaos !== undefined && mode !== 'replay') {
    throw new ModeltapeError(
      'invalid_chaos',
      `Chaos replays a recorded tape: it needs --mode replay, not ${mode}. Record first, then replay with --chaos SEED.`,
    );
  }
  let keyRules: CompiledKeyRules | undefined;
  if (options.normalizers !== undefined || options.keyHeaders !== undefined) {
    const rules: KeyRules = { headers: options.keyHeaders ?? compileKeyRules().rules.headers, normalizers: options.normalizers ?? [] };
    keyRules = compileKeyRules(rules);
  }
  // Under `modeltape mutate` a replay of a mutated tape replays its mutant copy instead.
  const swap = mode === 'replay' ? swappedTape(options.tape, env) : undefined;
  return {
    tape: swap?.tape ?? options.tape,
    swappedFrom: swap?.real,
    repeatLine: swap?.repeatLine,
    mode,
    host: options.host ?? '127.0.0.1',
    port,
    upstreams: buildUpstreamTable({ ...azureFromEnvironment(env), ...bedrockFromEnvironment(env), ...options.upstreams }),
    repeat,
    pace,
    keyRules,
    tapeNotes: options.tapeNotes ?? {},
    requireLive: options.requireLive === true,
    chaos,
    onMiss: checkChoice('miss policy', options.onMiss ?? 'error', MISS_POLICIES),
    missingTape: checkChoice('missing tape policy', options.missingTape ?? 'error', MISSING_TAPE_POLICIES),
    advice: options.advice ?? { ...CLI_MISS_ADVICE, ci: isCi(env) },
    configFile: options.configFile,
    prune: options.prune === true,
    append: options.append === true,
    clock: options.clock ?? (() => performance.now()),
    // Only a recording carries a date: a replay never reads SOURCE_DATE_EPOCH.
    now: options.now ?? (mode === 'record' || mode === 'auto' ? wallClock(env) : () => new Date()),
    // As the CLI writes: masked, and a tape's control characters escaped.
    log: options.log ?? ((message) => process.stderr.write(`${outputText(message)}\n`)),
    limits: resolveLimits(options.limits),
    tapeFileSystem: options[TAPE_FILE_SYSTEM],
  };
}

/**
 * The Azure OpenAI resource from `AZURE_OPENAI_ENDPOINT` (what `AzureOpenAI` reads), else from
 * `AZURE_RESOURCE_NAME` (what `@ai-sdk/azure` reads: `https://NAME.openai.azure.com`), unless
 * `--upstream azure=…` names one. Inside a `modeltape run` the endpoint variable points at the
 * run's own proxy (its `/azure` route), never a resource: then the run's upstreams say where it is.
 */
function azureFromEnvironment(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const resourceName = env.AZURE_RESOURCE_NAME?.trim();
  const named = resourceName !== undefined && /^[a-z0-9][a-z0-9-]*$/i.test(resourceName) ? `https://${resourceName}.openai.azure.com` : undefined;
  const endpoint = env.AZURE_OPENAI_ENDPOINT?.trim().replace(/\/+$/, '') || named;
  if (endpoint === undefined || endpoint === '') return {};
  const run = env[RUN_VARIABLES.url];
  if (run !== undefined && run !== '' && endpoint.startsWith(run)) return {};
  return { azure: endpoint };
}

/**
 * Bedrock Runtime's endpoint from the environment the AWS SDK reads, unless `--upstream
 * bedrock=…` names one: `AWS_ENDPOINT_URL_BEDROCK_RUNTIME` (or `AWS_ENDPOINT_URL`, which names
 * every service's), else the endpoint of `AWS_REGION` (or `AWS_DEFAULT_REGION`). Inside a
 * `modeltape run` the endpoint variable points at the run's own proxy: then the run's upstreams
 * say where Bedrock is.
 */
function bedrockFromEnvironment(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const run = env[RUN_VARIABLES.url];
  for (const name of ['AWS_ENDPOINT_URL_BEDROCK_RUNTIME', 'AWS_ENDPOINT_URL']) {
    const endpoint = env[name]?.trim().replace(/\/+$/, '');
    if (endpoint === undefined || endpoint === '') continue;
    if (run !== undefined && run !== '' && endpoint.startsWith(run)) return {};
    return { bedrock: endpoint };
  }
  const region = (env.AWS_REGION || env.AWS_DEFAULT_REGION)?.trim().toLowerCase();
  return region !== undefined && /^[a-z]{2}(?:-[a-z0-9]+)+-\d+$/.test(region) ? { bedrock: `https://bedrock-runtime.${region}.amazonaws.com` } : {};
}

function wallClock(env: Readonly<Record<string, string | undefined>>): () => Date {
  const pinned = pinnedDate(env);
  return pinned === undefined ? () => new Date() : () => pinned;
}

/**
 * The date SOURCE_DATE_EPOCH pins (reproducible builds' convention: whole seconds since 1970),
 * or undefined when it is unset: recordings carry it as their date, and `report` counts ages to it.
 */
export function pinnedDate(env: Readonly<Record<string, string | undefined>>): Date | undefined {
  const epoch = env.SOURCE_DATE_EPOCH;
  if (epoch === undefined || epoch === '') return undefined;
  // The last second of year 9999: a later day is no YYYY-MM-DD.
  if (!/^\d{1,12}$/.test(epoch) || Number(epoch) > 253_402_300_799)
    throw new ModeltapeError(
      'invalid_source_date',
      `SOURCE_DATE_EPOCH is ${JSON.stringify(epoch)}; it must be whole seconds since 1970 up to the end of year 9999 (e.g. 1764460800), or unset.`,
    );
  return new Date(Number(epoch) * 1000);
}

// The mutant copy `modeltape mutate` replays in place of a tape, by the tape's real path.
function swappedTape(tape: string, env: Readonly<Record<string, string | undefined>>): (TapeSwap & { real: string }) | undefined {
  const { tapeSwap } = runEnvironment(env);
  if (tapeSwap.size === 0) return undefined;
  let real = resolve(tape);
  try {
    real = realpathSync(real);
  } catch {
    // A tape that is not there is swapped by the path it was given.
  }
  const swap = tapeSwap.get(real);
  return swap === undefined ? undefined : { ...swap, real };
}

function resolveLimits(limits: ProxyLimits = {}): Readonly<Required<ProxyLimits>> {
  // The defaults are one object for every proxy of the process (a reserved server is shared by the same limits).
  if (Object.values(limits).every((value) => value === undefined)) return DEFAULT_LIMITS;
  const resolved = { ...DEFAULT_LIMITS };
  for (const name of Object.keys(DEFAULT_LIMITS) as (keyof ProxyLimits)[]) {
    const value = limits[name];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new ModeltapeError(
        'invalid_limit',
        `Invalid ${LIMIT_FLAGS[name]} (limits.${name}) ${JSON.stringify(value)}: expected a whole number above 0 (default ${DEFAULT_LIMITS[name]}).`,
      );
    }
    resolved[name] = value;
  }
  return resolved;
}
