/**
 * `modeltape/proxy`: the recording and replaying HTTP proxy that official SDKs reach by base URL
 * (`startProxy`), its options and modes, its summary, the config file, and `pruneTape` (see docs/proxy.md and docs/proxy-options.md).
 */
export { ModeltapeError, type ErrorCode } from '../core/internal.js';
export { startProxy, type RunningProxy } from './http/proxy-server.js';
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
} from './core/proxy-options.js';
export { BUILT_IN_UPSTREAMS, type Upstream, type Provider } from './core/upstream-table.js';
export { formatSummary, summaryFailed } from './core/summary.js';
export { loadConfig, CONFIG_FILE_NAME, ConfigFileError, type ModeltapeConfig, type ConfigProblem } from './core/config-file.js';
export { pruneTape } from './core/prune-tape.js';
export { CHAOS_KINDS, DEFAULT_CHAOS_KINDS, describeChaos, type ChaosKind, type ChaosOptions, type ChaosFault, type ResolvedChaos } from './core/chaos.js';
export { CHAOS_HEADER, type ProxySummary, type ChaosSummary, type UnusedRecordings } from './core/proxy-core.js';
export { REPLAY_PLACEHOLDER_KEY } from './core/placeholder-key.js';
export { placeholderGoogleCredentials, type PlaceholderGoogleCredentials } from './core/google-credentials.js';
export { NETWORK_ISOLATIONS, type NetworkIsolation, type NetworkOptions, type OfflineLayer } from './run/network-namespace.js';
export { loopbackWebSocket, type LoopbackWebSocketOptions } from './realtime/loopback-websocket.js';
