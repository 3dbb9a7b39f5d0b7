/**
 * Internal barrel: what other parts import. It is the public entry (index.ts) and what only the
 * other parts use.
 * proxy/: the recording proxy official SDKs reach by base URL.
 * `/<upstream>/<path>` goes to that upstream; modes replay (default), record, auto, passthrough.
 */
export * from './index.js';
export { resolveProxyOptions, LIMIT_FLAGS, pinnedDate } from './proxy-options.js';
export { parseChaosRate } from './chaos.js';
export { buildUpstreamTable, parseUpstreamFlag, providerHosts } from './upstream-table.js';
export { routeRequest, type Route } from './router.js';
export { formatEscapes, formatUnused, describeRecorded } from './summary.js';
export { UPSTREAM_SOCKETS } from './upstream.js';
export { inProcessAnswerer } from './proxy-server.js';
export { ProxyCore, errorReply, type OwnAnswer } from './proxy-core.js';
export { answerInProcess, answerOf, type InProcessAnswer } from './in-process-answer.js';
export { BASE_URL_VARIABLES, childEnvironment } from './child-environment.js';
export { runUnderProxy, type CommandRunIo, type ProxiedRun, type RunBound } from './run-under-proxy.js';
export { runVerdict, type RunVerdict } from './run-verdict.js';
export { namespaceSupport } from './network-namespace.js';
export type { UnusedOnTape } from './unused-recordings.js';
export { bridgeMcpStdio, STDIO_MCP_UPSTREAM, type McpStdioOptions, type McpStdioResult } from './mcp-stdio.js';
export { acceptWebSocket, type MessageSocket } from './websocket.js';
