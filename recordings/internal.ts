/**
 * recordings/ (internal barrel; the public entry is index.ts): the tape format and everything that reads, keys, redacts or writes it.
 * The spec of modeltape's data; every other part builds on these exports.
 */
export {
  TAPE_SCHEMA_VERSION,
  READABLE_TAPE_SCHEMA_VERSIONS,
  DEFAULT_KEY_HEADERS,
  FAKE_RESPONSE_HEADER,
  type Body,
  type Exchange,
  type ExchangeSource,
  type Frame,
  type JsonBody,
  type JsonLayout,
  type KeyRules,
  type LoadedExchange,
  type Normalizer,
  type Notes,
  type PathNormalizer,
  type PatternNormalizer,
  type RecordedRequest,
  type RecordedResponse,
  type RecordedStream,
  type StreamFormat,
  type TapeHeader,
} from './tape-format.js';
export { TapeFormatError, SecretInTapeError, type TapeProblem } from './errors.js';
export { canonicalJson, sortKeys } from './canonical-json.js';
export { compileKeyRules, defaultKeyRules, exchangeKey, keyInputs, sha256Hex, type CompiledKeyRules, type KeyInputs } from './exchange-key.js';
export { compileNormalizers, normalizeBody, type CompiledNormalizers } from './normalize-body.js';
export { backtrackingRisk, BACKTRACKING_ADVICE } from './regex-safety.js';
export { captureRequest, headerValue, type RawRequest } from './capture-request.js';
export {
  encodeBody,
  decodeBody,
  isJsonContentType,
  utf8OrUndefined,
  type EncodeBodyOptions,
  type DecodeBodyOptions,
  type BodyMismatch,
} from './body-encoding.js';
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
} from './redaction.js';
export { FrameSplitter, streamFormatOf } from './frame-splitter.js';
export { serializeLine, serializeTape, createHeader, describeExchange } from './tape-line.js';
export { writeTapeFile } from './write-tape-file.js';
export { MAX_JSON_DEPTH, JsonTooDeepError, abbreviatePath, deeperThan, exchangeTooDeepAt } from './json-depth.js';
export { firstDuplicateMember, type DuplicateMember } from './duplicate-members.js';
export {
  loadTape,
  readTape,
  parseTape,
  LazyLoadedExchange,
  TapeNotFoundError,
  type TapeContents,
  type TapeWarning,
  type ReadTapeOptions,
} from './tape-reader.js';
export { TapeWriter, type TapeWriterOptions, type TapeWriteFailure, type TapeFileSystem } from './tape-writer.js';
export { pointerToPath, describeSchemaErrors } from './tape-schema.js';
export { MODELTAPE_VERSION, WRITTEN_BY } from './version.js';
