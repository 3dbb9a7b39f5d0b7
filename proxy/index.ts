/**
 * `modeltape/proxy`: the recording and replaying HTTP proxy that official SDKs reach by base URL
 * (`startProxy`), its options and modes, its summary, the config file, and `pruneTape` (see docs/proxy.md).
 */
export { ModeltapeError, type ErrorCode } from '../core/internal.js';
export { startProxy, type ProxySummary, type RunningProxy } from './proxy-server.js';
export {
  isCi,
  RecordInCiError,
  PROXY_MODES,
  PACES,
  MISS_POLICIES,
  MISSING_TAPE_POLICIES,
  DEFAULT_LIMITS,
  type ProxyMode,
  type Pace,
  type ProxyOptions,
  type ProxyLimits,
  type MissPolicy,
  type MissingTapePolicy,
  type ResolvedProxyOptions,
} from './proxy-options.js';
export { BUILT_IN_UPSTREAMS, type Upstream, type Provider } from './upstream-table.js';
export { formatSummary, summaryFailed } from './summary.js';
export { loadConfig, CONFIG_FILE_NAME, ConfigFileError, type ModeltapeConfig, type ConfigProblem } from './config-file.js';
export { pruneTape } from './prune-tape.js';
export { CHAOS_KINDS, DEFAULT_CHAOS_KINDS, describeChaos, type ChaosKind, type ChaosOptions, type ChaosFault, type ResolvedChaos } from './chaos.js';
export { CHAOS_HEADER, type ChaosSummary, type UnusedRecordings } from './proxy-core.js';
export { REPLAY_PLACEHOLDER_KEY } from './placeholder-key.js';
export { NETWORK_ISOLATIONS, type NetworkIsolation, type NetworkOptions, type OfflineLayer } from './network-namespace.js';
export { loopbackWebSocket, type LoopbackWebSocketOptions } from './loopback-websocket.js';
