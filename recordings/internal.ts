/**
 * recordings/ (internal barrel; the public entry is index.ts): the tape format and everything that reads, keys, redacts or writes it.
 * The spec of modeltape's data; every other part builds on these exports.
 */
export * from './index.js';
export { sortKeys } from './canonical-json.js';
export { compileNormalizers, normalizeBody, normalizePath, rewritesBody } from './normalize-body.js';
export { backtrackingRisk, BACKTRACKING_ADVICE } from './regex-safety.js';
export { headerValue } from './capture-request.js';
export { isJsonContentType, utf8OrUndefined } from './body-encoding.js';
export {
  SECRET_HEADERS,
  HOP_BY_HOP_HEADERS,
  isFramingHeader,
  isSecretHeader,
  isSecretQueryParameter,
  isSecretQueryPair,
  redactPathParameters,
  redactQuery,
  redactPathQuery,
  redactResponseHeaders,
  redactUrl,
} from './redaction.js';
export { FrameSplitter, streamFormatOf } from './frame-splitter.js';
export { frameBytes } from './frame-bytes.js';
export { encodeEventStreamEvent, readEventStreamMessage } from './event-stream.js';
export { writeTapeFile } from './write-tape-file.js';
export { abbreviatePath, deeperThan, exchangeTooDeepAt } from './json-depth.js';
export { firstDuplicateMember, type DuplicateMember } from './duplicate-members.js';
export { closeTapeLines, LazyLoadedExchange } from './tape-reader.js';
export { openTapeFile } from './open-tape-file.js';
export { copyTapeReplacingLine } from './copy-tape-replacing-line.js';
export { writeTapeReplacingLines } from './write-tape-replacing-lines.js';
export { checkExchangeLine } from './tape-schema.js';
export { keysJsonBodyAsIs, WEBSOCKET_MESSAGE_METHOD } from './exchange-key.js';
export { pointerToPath, describeSchemaErrors, prepareExchangeCheck } from './tape-schema.js';
export { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './json-bytes.js';
export { renderJson, literalFits, keyOrderFits } from './render-json.js';
export { jsonLayout } from './json-layout.js';
export { sseFields, splitSse, streamEventsOf, eventStreamMessagesOf, responsePayloads, type StreamEvent, type EventStreamMessage } from './stream-events.js';
export { recordedAtOf } from './tape-line.js';
export { TEST_TAPES_FOLDER, safeFileName, testNameOf } from './test-tape-name.js';
