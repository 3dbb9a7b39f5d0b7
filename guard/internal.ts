/**
 * guard/: the floor that proves a replay stays on the machine. A connect hook that sees every
 * TCP connection of a process before its DNS lookup, the report file through which every
 * process of a run tells the run what it stopped, and the preload `modeltape run` puts into
 * each Node process it starts. Node's own modules only: the preload must stay light.
 */
export { onConnect, asProxyConnection, wasRefused, callerRoute, type ConnectAttempt, type ConnectListener } from './connect-hook.js';
export { isLoopbackHost, hostMatcher, canonicalHost, parseAuthority } from './hosts.js';
export {
  ESCAPE_ROUTES,
  SIDE_CHANNELS,
  sideChannelOf,
  describeEscape,
  ConnectionBlockedError,
  type Escape,
  type EscapeRoute,
  type OutsideConnection,
} from './escape.js';
export {
  appendRunReport,
  readRunReport,
  reportSignalPath,
  describeThisProcess,
  type RunReport,
  type RunReportRecord,
  type SessionReport,
  type ReportedTest,
} from './run-report.js';
export { RUN_VARIABLES, runEnvironment, ancestorRunVariables, type RunEnvironment, type TapeSwap } from './run-environment.js';
export { installRunGuard, runGuardInstalled, GUARD_PRELOAD_URL } from './run-guard.js';
export { NAMESPACE_RELAY_PATH, NAMESPACE_SETUP_FAILED } from './namespace-relay-path.js';
export { watchProviderRequests, type ProviderRequest, type RequestWatch } from './request-hook.js';
