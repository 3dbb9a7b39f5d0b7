/**
 * Internal barrel: what other parts import (the public entry `modeltape/proxy` is index.ts).
 * proxy/: the recording proxy official SDKs reach by base URL.
 * `/<upstream>/<path>` goes to that upstream; modes replay (default), record, auto, passthrough.
 */
export { startProxy, type ProxySummary, type RunningProxy } from './proxy-server.js';
export {
  resolveProxyOptions,
  isCi,
  RecordInCiError,
  PROXY_MODES,
  PACES,
  MISS_POLICIES,
  MISSING_TAPE_POLICIES,
  DEFAULT_LIMITS,
  LIMIT_FLAGS,
  type ProxyMode,
  type Pace,
  type ProxyOptions,
  type ProxyLimits,
  type ResolvedProxyOptions,
  type MissPolicy,
  type MissingTapePolicy,
} from './proxy-options.js';
export { BUILT_IN_UPSTREAMS, buildUpstreamTable, parseUpstreamFlag, providerHosts, type Upstream, type ProviderFlavor } from './upstream-table.js';
export { routeRequest, type Route } from './router.js';
export { formatSummary, formatEscapes, summaryFailed } from './summary.js';
export { loadConfig, CONFIG_FILE_NAME, ConfigFileError, type ModeltapeConfig, type ConfigProblem } from './config-file.js';
export { pruneTape } from './prune-tape.js';
export { UPSTREAM_SOCKETS } from './upstream.js';
export { REPLAY_PLACEHOLDER_KEY } from './placeholder-key.js';
