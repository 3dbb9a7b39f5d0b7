/**
 * core/: the floor every part stands on, importing no part of its own. The error base class and
 * the one union of error codes, the check of a closed set, the JSON type and helpers, JSON access
 * paths, the structural diff, the secret scan (the base class masks every message with it), and
 * the reading of a fetch call's request for the in-process answerers.
 * Internal: the package's public entries re-export what users need by name.
 */
export { ERROR_CODES, type ErrorCode } from './error-codes.js';
export { ModeltapeError } from './modeltape-error.js';
export { InvalidChoiceError, checkChoice } from './invalid-choice-error.js';
export { isRecord, parseJson, type Json } from './json.js';
export { propertyPath, indexPath, type PathSegment } from './json-path.js';
export { parseJsonPath } from './parse-json-path.js';
export { escapeHtml } from './escape-html.js';
export { escapeControls } from './escape-controls.js';
export { outputText } from './output-text.js';
export { displayPath } from './display-path.js';
export { describeWriteError } from './describe-write-error.js';
export { readFetchInput, type FetchInput } from './fetch-input.js';
export {
  diffJson,
  formatDifferences,
  formatDifference,
  describeStringChange,
  abbreviate,
  type Difference,
  type DiffOptions,
  type FormatOptions,
} from './json-diff.js';
export {
  SECRET_RULES,
  SECRET_PATTERNS,
  findSecrets,
  mayHoldSecret,
  secretSpans,
  maskSecrets,
  maskValue,
  secretMarker,
  excerpt,
  type SecretRule,
  type SecretSpan,
  type SecretLocation,
} from './secret-scan.js';
export {
  parseRegex,
  RegexSyntaxError,
  complement,
  ANY_CODE_POINT,
  DIGIT,
  WORD,
  SPACE,
  type CodePointRanges,
  type RegexAlternatives,
  type RegexBranch,
  type RegexElement,
} from './regex-syntax.js';
