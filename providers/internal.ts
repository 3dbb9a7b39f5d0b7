/**
 * Internal barrel: what other parts import.
 * providers/: each wire API once (OpenAI chat, Responses, Realtime and embeddings, Anthropic Messages, and
 * the names of Gemini's and Ollama's): the names, reading a request into turns, the refusals a
 * provider makes before any model runs, the error body of each provider, rendering a request and
 * reading an answer for the runtime.
 */
export {
  PROVIDERS,
  WIRE_APIS,
  TURN_APIS,
  PROVIDER_PREFIX,
  providerOf,
  routeOf,
  withoutProviderPrefix,
  guessProvider,
  providerPath,
  isRealtimePath,
  vertexLocationOf,
  type Provider,
  type WireApi,
  type TurnApi,
  type Route,
} from './vocabulary.js';
export { errorBody, errorHeaders, errorProviderOf, modeltapeErrorBody, type ProviderError } from './error-body.js';
export { AZURE_OWN_ERROR, AZURE_ACCESS_DENIED } from './azure/error-body.js';
export {
  AZURE_FILTER_CATEGORIES,
  AZURE_SEVERITIES,
  PROMPT_FILTERED_MESSAGE,
  completionFilterResults,
  promptFilterAnnotation,
  promptAnnotationChunk,
  promptFilteredInnerError,
  promptFilterResults,
  responsesContentFilters,
  type AzureFilterCategory,
  type AzureFilterHit,
  type AzureSeverity,
} from './azure/content-filter.js';
export { BEDROCK_EXCEPTION_STATUS } from './bedrock/error-body.js';
export { bedrockStreamException } from './bedrock/stream-exception.js';
export {
  CONVERSE_STREAM_EVENTS,
  readConverseAnswer,
  assembleConverseStream,
  converseEventOfChunk,
  type ConverseAnswer,
  type ConverseStreamEvent,
  type ConverseStreamEventType,
} from './bedrock/converse/read-answer.js';
export { checkConverseStreamGrammar } from './bedrock/converse/stream-grammar.js';
export { checkInvokeStreamGrammar, type InvokeStreamMessage } from './bedrock/invoke/stream-grammar.js';
export { TRANSIENT_FAILURES, transientFailure, type TransientFailure } from './transient-failure.js';
export { anthropicErrorType, ANTHROPIC_ERROR_TYPES } from './anthropic/error-body.js';
export type { RefusalOptions } from './refusal.js';
export {
  askedTurn,
  renderPrompt,
  readToolChoice,
  contentText,
  parseArguments,
  base64Bytes,
  type AskedTurn,
  type AskedMessage,
  type AskedItem,
  type AskedPart,
  type AskedValue,
  type AskedTool,
  type ResponseSchema,
  type ToolExchange,
  type ToolChoice,
} from './turn.js';
export { checkOpenAiStrictSchema, checkAnthropicStrictSchema, formatContext, OPENAI_STRICT_LIMITS, type SchemaViolation } from './strict-schema.js';
export { parseToolArguments, checkArgumentsValue, ARGUMENT_DEPTH_CAP, type ParsedArguments } from './tool-arguments.js';
export { OPENAI_TOOL_NAME, OPENAI_MAX_TOOLS } from './openai/limits.js';
export { readChatRequest } from './openai/chat/read-request.js';
export { refuseChatRequest } from './openai/chat/refusals.js';
export { readResponsesRequest } from './openai/responses/read-request.js';
export { refuseResponsesRequest } from './openai/responses/refusals.js';
export { renderResponsesRequest } from './openai/responses/render-request.js';
export { readResponsesAnswer } from './openai/responses/read-answer.js';
export { readMessagesRequest } from './anthropic/messages/read-request.js';
export { refuseMessagesRequest, refuseCountTokensRequest, thinks } from './anthropic/messages/refusals.js';
export { readTurn, readTurnAs, readableTurnApis } from './read-turn.js';
export type { ModelAnswer, ModelRequest, ModelToolCall, Turn, OfferedTool, UnreadableAnswer } from './model-call.js';
export { renderChatRequest } from './openai/chat/render-request.js';
export { readChatAnswer } from './openai/chat/read-answer.js';
export { renderMessagesRequest } from './anthropic/messages/render-request.js';
export { readMessagesAnswer } from './anthropic/messages/read-answer.js';
export { readOllamaChatRequest, readOllamaTools } from './ollama/chat/read-request.js';
export { readOllamaGenerateRequest } from './ollama/generate/read-request.js';
export { refuseOllamaChatRequest, refuseOllamaGenerateRequest } from './ollama/refusals.js';
export { OLLAMA_THINK_LEVELS, ollamaModelThinks, ollamaThinks } from './ollama/thinking.js';
export { renderOllamaChatRequest } from './ollama/chat/render-request.js';
export { readOllamaChatAnswer } from './ollama/chat/read-answer.js';
export { readOllamaGenerateAnswer } from './ollama/generate/read-answer.js';
export { answeredModelOf } from './answered-model.js';
export { readGenerateRequest, responseSchemaOf } from './gemini/read-request.js';
export { readConverseRequest, converseResponseSchema } from './bedrock/converse/read-request.js';
export { refuseConverseRequest, refuseConverseShaped } from './bedrock/converse/refusals.js';
export { readInvokeRequest } from './bedrock/invoke/read-request.js';
export { refuseInvokeRequest } from './bedrock/invoke/refusals.js';
export { INVOKE_FAMILIES, bodyFamilyOf, invokeFamilyOf, modelFamilyOf, type InvokeFamily } from './bedrock/invoke/family.js';
export { refuseGenerateRequest } from './gemini/refusals.js';
export { renderGenerateRequest } from './gemini/render-request.js';
export { readGenerateAnswer } from './gemini/read-answer.js';
export { rpcStatus } from './gemini/error-body.js';
export { openApiToJsonSchema } from './gemini/schema.js';
export { checkChatStreamGrammar, type GrammarEvent } from './openai/chat/stream-grammar.js';
export { checkResponsesStreamGrammar } from './openai/responses/stream-grammar.js';
export { checkMessagesStreamGrammar } from './anthropic/messages/stream-grammar.js';
export { checkGenerateStreamGrammar } from './gemini/stream-grammar.js';
export { checkOllamaChatStreamGrammar, checkOllamaGenerateStreamGrammar } from './ollama/stream-grammar.js';
export {
  REALTIME_CLIENT_EVENTS,
  REALTIME_ITEM_TYPES,
  readClientEvent,
  type RealtimeClientEventType,
  type ReadClientEvent,
} from './openai/realtime/read-client-event.js';
export { realtimeErrorEvent, type RealtimeError } from './openai/realtime/error-event.js';
export { withoutClientSecret } from './openai/realtime/without-client-secret.js';
export { readRealtimeTurn, type RealtimeTurnRequest } from './openai/realtime/read-turn.js';
export { checkRealtimeResponseGrammar } from './openai/realtime/event-grammar.js';
export { REALTIME_KEY_PROTOCOL_PREFIX, carriesRealtimeKey, maskKeyProtocols, offeredSubprotocols } from './openai/realtime/subprotocols.js';
export {
  MODELTAPE_RPC_ERROR,
  checkJsonRpcLine,
  isJsonRpcMessage,
  isJsonRpcRequest,
  isJsonRpcResponse,
  jsonRpcIdOf,
  describeJsonRpc,
  describeMcpCall,
  mcpErrorBody,
  renumberResponse,
  renumberSseEvent,
  jsonRpcRefusalBody,
  type JsonRpcId,
  type JsonRpcRefusal,
} from './mcp/json-rpc.js';
