/**
 * `modeltape/recordings`: the tape format and the tools to read, key and write it. The spec of
 * modeltape's data: a tape is a header line and one canonical JSON exchange per line (see
 * docs/tape-format.md). Everything here is stable across minor versions.
 */
export {
  ModeltapeError,
  ERROR_CODES,
  InvalidChoiceError,
  parseJsonPath,
  findSecrets,
  maskSecrets,
  secretSpans,
  SECRET_RULES,
  type ErrorCode,
  type PathSegment,
  type SecretRule,
  type SecretSpan,
  type SecretLocation,
} from '../core/internal.js';
export {
  TAPE_SCHEMA_VERSION,
  READABLE_TAPE_SCHEMA_VERSIONS,
  DEFAULT_KEY_HEADERS,
  EXCHANGE_SOURCES,
  CLIENT_HEADERS,
  NORMALIZER_TARGETS,
  FAKE_RESPONSE_HEADER,
  STREAM_FORMATS,
  type Body,
  type Exchange,
  type ExchangeSource,
  type EventStreamBytes,
  type EventStreamEvent,
  type Frame,
  type JsonBody,
  type JsonLayout,
  type KeyRules,
  type LoadedExchange,
  type Normalizer,
  type Notes,
  type PathNormalizer,
  type PatternNormalizer,
  type NormalizerTarget,
  type RecordedRequest,
  type RecordedResponse,
  type RecordedStream,
  type StreamFormat,
  type TapeHeader,
} from './tape-format.js';
export { TapeFormatError, SecretInTapeError, type TapeProblem } from './errors.js';
export { canonicalJson } from './canonical-json.js';
export { compileKeyRules, defaultKeyRules, exchangeKey, keyInputs, sha256Hex, type CompiledKeyRules, type KeyInputs } from './exchange-key.js';
export { captureRequest, type RawRequest } from './capture-request.js';
export { encodeBody, decodeBody, type EncodeBodyOptions, type DecodeBodyOptions, type BodyMismatch } from './body-encoding.js';
export type { CompiledNormalizers } from './normalize-body.js';
export { serializeLine, serializeTape, createHeader, describeExchange } from './tape-line.js';
export { MAX_JSON_DEPTH, JsonTooDeepError } from './json-depth.js';
export { loadTape, readTape, parseTape, TapeNotFoundError, type TapeContents, type TapeWarning, type ReadTapeOptions } from './tape-reader.js';
export { NotATapeFileError } from './open-tape-file.js';
export { TapeWriter, type TapeWriterOptions, type TapeWriteFailure, type TapeFileSystem } from './tape-writer.js';
export { MODELTAPE_VERSION, WRITTEN_BY } from './version.js';
