import { isAbsolute } from 'node:path';
import {
  CHAOS_KINDS,
  LIMIT_FLAGS,
  NETWORK_ISOLATIONS,
  PACES,
  PROXY_MODES,
  loadConfig,
  parseChaosRate,
  parseUpstreamFlag,
  type ChaosKind,
  type ProxyLimits,
  type ProxyOptions,
  type ModeltapeConfig,
  type NetworkIsolation,
  type NetworkOptions,
} from '../proxy/internal.js';
import { ModeltapeError } from '../core/internal.js';
import { REPEAT_POLICIES } from '../lookup/internal.js';
import { UsageError, type FlagSpec, type ParsedArguments } from './arguments.js';

/** The flags `proxy` and `run` share. */
export const PROXY_FLAGS: readonly FlagSpec[] = [
  { name: 'tape', kind: 'string', value: 'FILE', description: 'the tape to replay from and record to' },
  {
    name: 'mode',
    kind: 'string',
    value: 'MODE',
    choices: PROXY_MODES,
    description: 'replay answers only from the tape; record and auto write to it (default replay)',
  },
  { name: 'host', kind: 'string', value: 'HOST', description: 'address to listen on (default 127.0.0.1)' },
  { name: 'upstream', kind: 'list', value: 'NAME=URL', description: 'add or override an upstream; repeatable' },
  {
    name: 'repeat',
    kind: 'string',
    value: 'POLICY',
    choices: REPEAT_POLICIES,
    description: 'past the last recording of a request: miss (none) or reuse it (last) (default none)',
  },
  { name: 'pace', kind: 'string', value: 'PACE', choices: PACES, description: 'replay streams at once or with their recorded timing (default instant)' },
  { name: 'allow-record-in-ci', kind: 'boolean', description: 'allow record and auto where CI is set' },
  { name: 'require-live', kind: 'boolean', description: 'refuse to replay a tape holding exchanges a FakeProvider answered' },
  {
    name: 'chaos',
    kind: 'string',
    value: 'SEED',
    description: 'replay with faults (429, 5xx, dropped connections) at exchanges chosen from SEED; retries replay',
  },
  { name: 'chaos-rate', kind: 'string', value: 'R', description: 'with --chaos: the share of exchanges to fault, above 0 and at most 1 (default 0.25)' },
  { name: 'chaos-kinds', kind: 'string', value: 'KINDS', description: `with --chaos: a comma list of ${CHAOS_KINDS.join(', ')} (default all but stall)` },
  { name: 'prune', kind: 'boolean', description: 'with --mode auto: drop from the tape the exchanges this run did not use' },
  {
    name: 'append',
    kind: 'boolean',
    description: 'with --mode record: keep the recordings of a request the tape holds and add new ones after them (default: replace them in place)',
  },
  { name: 'max-request-body', kind: 'integer', value: 'BYTES', description: 'refuse a request body over this size with a 413 (default 33554432, 32 MiB)' },
  {
    name: 'max-response-body',
    kind: 'integer',
    value: 'BYTES',
    description: 'forward but do not record a response body over this size (default 268435456, 256 MiB)',
  },
  { name: 'headers-timeout', kind: 'integer', value: 'MS', description: 'close a client that has not sent its headers within MS (default 60000)' },
  { name: 'request-timeout', kind: 'integer', value: 'MS', description: 'close a client that has not sent its whole request within MS (default 300000)' },
  { name: 'max-connections', kind: 'integer', value: 'N', description: 'client connections open at once; more are refused (default 1000)' },
  { name: 'config', kind: 'string', value: 'FILE', description: 'normalizers, key headers and upstreams (default modeltape.config.json, if present)' },
  { name: 'help', kind: 'boolean', description: 'show this help' },
];

/** The flags of a command run under a replay (`run`, `drift`, `mutate`): what keeps it off the network. */
export const NETWORK_FLAGS: readonly FlagSpec[] = [
  {
    name: 'network',
    kind: 'string',
    value: 'LAYER',
    choices: NETWORK_ISOLATIONS,
    description:
      "in replay, what keeps the command off the network: the guard, a network namespace of its own (Linux; fails where there is none), or the namespace where there is one (default guard, or the config's network)",
  },
  {
    name: 'allow-port',
    kind: 'list',
    value: 'PORT',
    description: 'with a network namespace: a local port the command may still reach (a database started outside the run); repeatable',
  },
];

/**
 * The network layer and the ports it lets through, from --network and --allow-port over the config
 * file's `network` and `allowPorts`; and the `unshare` program that makes a namespace, from
 * `MODELTAPE_UNSHARE` in `env` when it is not in the usual places.
 */
export function networkFrom(parsed: ParsedArguments, config: ModeltapeConfig, env: NodeJS.ProcessEnv): NetworkOptions & { allowPorts: number[] } {
  const isolation = (parsed.flags.network as NetworkIsolation | undefined) ?? config.network ?? 'guard';
  const allowPorts = [...(config.allowPorts ?? [])];
  for (const value of (parsed.flags['allow-port'] as string[] | undefined) ?? []) {
    const port = Number(value);
    if (!/^\d+$/.test(value) || port < 1 || port > 65535)
      throw new UsageError(`Invalid --allow-port ${JSON.stringify(value)}: expected a port number from 1 to 65535.`);
    allowPorts.push(port);
  }
  if (allowPorts.length > 0 && isolation === 'guard')
    throw new UsageError('--allow-port lets a port through a network namespace, and this run has none: add --network namespace-or-guard (or namespace).');
  const unshare = env.MODELTAPE_UNSHARE || undefined;
  if (unshare !== undefined && !isAbsolute(unshare))
    throw new UsageError(`Invalid MODELTAPE_UNSHARE ${JSON.stringify(unshare)}: expected the absolute path of the unshare program (util-linux).`);
  return { isolation, allowPorts, ...(unshare === undefined ? {} : { unshare }) };
}

const LIMIT_FLAG_NAMES = (Object.entries(LIMIT_FLAGS) as [keyof ProxyLimits, string][]).map(([name, flag]) => [flag.slice(2), name] as const);

/**
 * Proxy options from parsed flags, with modeltape.config.json (or --config) read from `cwd`.
 * Values are checked again, once, by resolveProxyOptions.
 */
export function proxyOptionsFrom(parsed: ParsedArguments, defaults: { tape: string; port?: number }, cwd: string): ProxyOptions {
  const { config } = loadConfig(parsed.flags.config as string | undefined, cwd);
  const upstreams: Record<string, string> = { ...config.upstreams };
  for (const value of (parsed.flags.upstream as string[] | undefined) ?? []) {
    const { name, baseUrl } = parseUpstreamFlag(value);
    upstreams[name] = baseUrl;
  }
  const options: ProxyOptions = { tape: (parsed.flags.tape as string | undefined) ?? defaults.tape, upstreams };
  if (parsed.flags.config !== undefined) options.configFile = parsed.flags.config as string;
  if (config.normalizers !== undefined) options.normalizers = config.normalizers;
  if (config.keyHeaders !== undefined) options.keyHeaders = config.keyHeaders;
  if (parsed.flags.mode !== undefined) options.mode = parsed.flags.mode as ProxyOptions['mode'];
  if (parsed.flags.host !== undefined) options.host = parsed.flags.host as string;
  if (parsed.flags.port !== undefined) options.port = parsed.flags.port as number;
  else if (defaults.port !== undefined) options.port = defaults.port;
  if (parsed.flags.repeat !== undefined) options.repeat = parsed.flags.repeat as ProxyOptions['repeat'];
  if (parsed.flags.pace !== undefined) options.pace = parsed.flags.pace as ProxyOptions['pace'];
  if (parsed.flags['allow-record-in-ci'] === true) options.allowRecordInCi = true;
  if (parsed.flags['require-live'] === true) options.requireLive = true;
  if (parsed.flags.prune === true) options.prune = true;
  if (parsed.flags.append === true) {
    if ((options.mode ?? 'replay') !== 'record')
      throw new ModeltapeError(
        'append_needs_record',
        `--append keeps the recordings a record run would replace, so it needs --mode record; got --mode ${options.mode ?? 'replay'}. (Auto mode only records what the tape cannot answer, and always adds it.)`,
      );
    options.append = true;
  } else if (config.append === true) options.append = true;
  const chaos = parsed.flags.chaos as string | undefined;
  if (chaos === undefined && (parsed.flags['chaos-rate'] !== undefined || parsed.flags['chaos-kinds'] !== undefined)) {
    throw new ModeltapeError('invalid_chaos', '--chaos-rate and --chaos-kinds shape a chaos replay: give its seed too (--chaos SEED).');
  }
  if (chaos !== undefined) {
    const rate = parsed.flags['chaos-rate'] as string | undefined;
    const kinds = parsed.flags['chaos-kinds'] as string | undefined;
    options.chaos = {
      seed: chaos,
      ...(rate === undefined ? {} : { rate: parseChaosRate(rate) }),
      ...(kinds === undefined ? {} : { kinds: kinds.split(',').map((kind) => kind.trim()) as ChaosKind[] }),
    };
  }
  const limits: ProxyLimits = { ...config.limits };
  for (const [flag, name] of LIMIT_FLAG_NAMES) {
    if (parsed.flags[flag] !== undefined) limits[name] = parsed.flags[flag] as number;
  }
  if (Object.keys(limits).length > 0) options.limits = limits;
  return options;
}
