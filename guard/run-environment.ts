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
} as const;

/** What a process learns from its environment about the run it belongs to. */
export interface RunEnvironment {
  /** The run's proxy origin, if this process runs under one. */
  proxyUrl: string | undefined;
  guardHosts: string[];
  reportFile: string | undefined;
  onMiss: 'nearest' | undefined;
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
  };
}
