/**
 * `modeltape/fake-provider`: a deterministic provider that answers from a script or a tape in each
 * provider's real wire format, in process (`fake.fetch`) or over HTTP (`fake.listen()`); see docs/fake-provider.md.
 */
export { ModeltapeError, type ErrorCode } from '../core/internal.js';
export { FakeProvider, RuleBuilder, FakeScriptError, askedTurnOf, type FakeProviderOptions, type FakeCall } from './fake-provider.js';
export type { FakeRequest } from './fake-request.js';
export { FakeHistoryTruncatedError, DEFAULT_HISTORY_LIMIT, type KeptEntries } from './bounded-history.js';
export { failures, FAILURE_KINDS, type Failure, type RetryOptions } from './failures.js';
export { PROVIDERS, WIRE_APIS, TURN_APIS, type Provider, type WireApi, type TurnApi } from '../providers/internal.js';
export { AZURE_FILTER_CATEGORIES, AZURE_SEVERITIES, type AzureFilterCategory, type AzureFilterHit, type AzureSeverity } from '../providers/internal.js';
export type { AskedTurn, AskedMessage, AskedItem, AskedPart, AskedValue, AskedTool, ResponseSchema, ToolExchange } from '../providers/internal.js';
export type { Answer, ToolCallAnswer } from './answer.js';
export { FINISH_REASONS, NEUTRAL_FINISHES, PROVIDER_FINISHES, type FinishReason, type NeutralFinish, type ProviderFinish } from './answer.js';
export type { Matcher, StepOptions, Chunking } from './script.js';
export type { IdKind } from './surface.js';
export type { FakeServer, ListenOptions } from './http-listener.js';
export { FAKE_HEADER, type WireResponse } from './wire-response.js';
export { checkOpenAiStrictSchema, checkAnthropicStrictSchema, OPENAI_STRICT_LIMITS, type SchemaViolation } from '../providers/internal.js';
export { embed } from './openai-embeddings.js';
export { type TapeFake, type TapeFakeOptions, type TapeFakeSummary } from './tape-fake.js';
export { readFakeScript, parseFakeScript, type ScriptLine, type ScriptEntry } from './script-file.js';
export {
  FakeMcpServer,
  FAKE_MCP_META,
  type FakeMcpServerOptions,
  type FakeMcpTool,
  type FakeMcpAnswer,
  type FakeMcpResource,
  type FakeMcpPrompt,
  type FakeMcpCall,
  type FakeMcpHttpServer,
} from './mcp/fake-mcp-server.js';
export type { McpTransport } from './mcp/mcp-sdk.js';
