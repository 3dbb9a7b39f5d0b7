/**
 * Internal barrel: what other parts import. It is the public entry (index.ts) and what only the
 * other parts use.
 * proxy/: the recording proxy official SDKs reach by base URL.
 * `/<upstream>/<path>` goes to that upstream; modes replay (default), record, auto, passthrough.
 */
export * from './index.js';
export { resolveProxyOptions, LIMIT_FLAGS, pinnedDate } from './core/proxy-options.js';
export { parseChaosRate } from './core/chaos.js';
export { buildUpstreamTable, CLOUD_HOSTS, cloudUpstreamOf, parseUpstreamFlag, providerHosts } from './core/upstream-table.js';
export { routeRequest, type Route } from './core/router.js';
export { formatEscapes, formatUnused, describeRecorded } from './core/summary.js';
export { UPSTREAM_SOCKETS } from './http/upstream.js';
export { inProcessAnswerer, listeningUrl, openProxy } from './http/proxy-server.js';
export { ProxyCore, errorReply, type OwnAnswer } from './core/proxy-core.js';
export { answerInProcess, answerOf, type InProcessAnswer } from './core/in-process-answer.js';
export { BASE_URL_VARIABLES, childEnvironment } from './run/child-environment.js';
export { keyVariableOf } from './core/placeholder-key.js';
export { runUnderProxy, type CommandRunIo, type ProxiedRun, type RunBound } from './run/run-under-proxy.js';
export { runVerdict, type RunVerdict } from './run/run-verdict.js';
export { namespaceSupport } from './run/network-namespace.js';
export type { UnusedOnTape } from './run/unused-recordings.js';
export { bridgeMcpStdio, STDIO_MCP_UPSTREAM, type McpStdioOptions, type McpStdioResult } from './mcp-stdio/mcp-stdio.js';
export { acceptWebSocket, type MessageSocket } from './realtime/websocket.js';
export { googleAuthAnswer } from './core/google-credentials.js';
export { Http2Sessions, serveHttp2WithPriorKnowledge, type Http2ProxyRequest, type Http2ProxyResponse } from './http/http2-sessions.js';
