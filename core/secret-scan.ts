import { gunzipSync } from 'node:zlib';
import { indexPath, propertyPath } from './json-path.js';

/** Where a key-shaped string was found in an exchange that was about to be written. */
export interface SecretLocation {
  /**
   * JSON access path inside the exchange, e.g. `.request.body.json.messages[0].content`,
   * `.request.query[0][1]`, `.response.body.base64 (decoded)`; a key used as a property name is
   * masked in it.
   */
  path: string;
  /** Which rule matched: `openai-key`, `anthropic-key`, `bearer-token`, `google-key`, … (see SECRET_RULES). */
  rule: string;
  /** The marker that stands for it, e.g. `[openai-key 44 chars]`: its kind and size, never any part of it. */
  masked: string;
}

/**
 * The one detector of credentials in modeltape: what a tape refuses, and what every output
 * (messages, summaries, drift reports, snapshots, `inspect`, the FakeProvider's history) masks.
 *
 * A hand-kept table. Its shapes come from the providers' documented key formats and from
 * secretlint's recommended preset (@secretlint/secretlint-rule-preset-recommend 10.x: OpenAI,
 * Anthropic, GitHub, Slack, AWS, GCP, private keys, basic auth), plus the Groq, xAI, Hugging Face,
 * Stripe, Azure OpenAI, Google OAuth access token, Bedrock API key and JWT shapes that preset lacks. secretlint itself is not used: its rules
 * run asynchronously over whole files, and the recorder scans each exchange synchronously, after
 * the client has its answer but before the line is queued.
 */
export interface SecretRule {
  /** The name a finding is reported by, e.g. `openai-key`. */
  readonly rule: string;
  /** A global regular expression; with the `d` flag, capture group 1 is the secret. */
  readonly pattern: RegExp;
  /** A last check on the secret (the match, or group 1) that keeps prose and ids out. */
  readonly accept?: (secret: string) => boolean;
}

/** One credential inside a text: where it starts, how long it is, and which rule found it. */
export interface SecretSpan {
  index: number;
  length: number;
  rule: string;
}

// A key is random: letters and digits mixed. Kebab-case prose ("sk-management-system") is not.
function looksRandom(secret: string): boolean {
  return /\d/.test(secret) && /[A-Za-z]/.test(secret) && ((/[a-z]/.test(secret) && /[A-Z]/.test(secret)) || /[A-Za-z0-9]{16}/.test(secret));
}

// No `\b`: a key glued to `_`, a digit or an escape (`\nsk-…` in a raw SSE frame) is still a key.
// Only the bare `sk-` shape asks for no letter before it, or "task-", "risk-" would be keys.
export const SECRET_RULES: readonly SecretRule[] = [
  { rule: 'anthropic-key', pattern: /sk-ant-[A-Za-z0-9_-]{20,}/g },
  { rule: 'openai-key', pattern: /sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}/g },
  {
    rule: 'openai-key',
    pattern: /(?:(?<![A-Za-z])|(?<=\\[nrtbfv])|(?<=\\u[0-9A-Fa-f]{4}))sk-(?!ant-|proj-|svcacct-|admin-|None-)[A-Za-z0-9_-]{20,}/g,
    accept: looksRandom,
  },
  { rule: 'github-token', pattern: /(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}/g },
  { rule: 'github-token', pattern: /github_pat_[A-Za-z0-9_]{22,}/g },
  { rule: 'stripe-key', pattern: /(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}/g },
  { rule: 'slack-token', pattern: /xox[abpr]-[A-Za-z0-9-]{10,}/g, accept: (secret) => /\d/.test(secret) },
  { rule: 'huggingface-token', pattern: /hf_[A-Za-z0-9]{30,}/g, accept: looksRandom },
  { rule: 'groq-key', pattern: /gsk_[A-Za-z0-9]{40,}/g },
  { rule: 'xai-key', pattern: /xai-[A-Za-z0-9]{40,}/g, accept: looksRandom },
  // An OpenAI Realtime client secret (`ek_` and 32 hex digits, valid a minute) or a Stripe
  // ephemeral key (`ek_live_…`, `ek_test_…`). Not after a letter, as the bare `sk-`: "week_…".
  {
    rule: 'ephemeral-key',
    pattern: /(?:(?<![A-Za-z])|(?<=\\[nrtbfv])|(?<=\\u[0-9A-Fa-f]{4}))ek_[A-Za-z0-9_]{20,}/g,
    accept: looksRandom,
  },
  { rule: 'google-key', pattern: /AIza[0-9A-Za-z_-]{35}/g },
  // A Google OAuth access token (what Vertex AI takes as `Authorization: Bearer ya29.…`): a user's
  // `ya29.a0…`, a service account's `ya29.c.c0…`.
  { rule: 'google-oauth-token', pattern: /ya29\.[A-Za-z0-9_.-]{20,}/g },
  // A long-term Amazon Bedrock API key (AWS_BEARER_TOKEN_BEDROCK): `ABSK` and the base64 of
  // `BedrockAPIKey-…:<secret>`. A short-term one (`bedrock-api-key-` and a presigned URL in base64)
  // is found by the access key id its URL names.
  { rule: 'bedrock-api-key', pattern: /ABSK[A-Za-z0-9+/]{32,}={0,2}/g },
  // No bound after the 20 characters: an id glued to more capitals or digits is still an id.
  { rule: 'aws-access-key', pattern: /(?:AKIA|ASIA)[0-9A-Z]{16}/g },
  { rule: 'aws-secret-key', pattern: /aws.{0,24}?(?:secret|key).{0,24}?["'=:\s]([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/dgi, accept: looksRandom },
  { rule: 'azure-openai-key', pattern: /(?:api[-_]?key|subscription[-_]key|azure[\w-]{0,24}key)["']?\s*[:=]\s*["']?([0-9a-fA-F]{32})(?![0-9a-fA-F])/dgi },
  { rule: 'jwt', pattern: /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/g },
  { rule: 'private-key', pattern: /-----BEGIN[A-Z0-9 ]{0,32}PRIVATE KEY-----[\s\S]{0,16384}?(?:-----END[A-Z0-9 ]{0,32}PRIVATE KEY-----|$)/g },
  { rule: 'bearer-token', pattern: /Bearer\s+[A-Za-z0-9._~+/=-]{20,}/gi, accept: (secret) => /\d/.test(secret) },
  { rule: 'basic-auth', pattern: /Basic\s+([A-Za-z0-9+/]{16,}={0,2})/dg, accept: (secret) => Buffer.from(secret, 'base64').toString('latin1').includes(':') },
  // The user may be empty (`https://:password@host`), and the scheme too (`//user:password@host`).
  { rule: 'url-credentials', pattern: /(?:[A-Za-z][A-Za-z0-9+.-]{1,20}:)?\/\/([^\s/?#@:"'<>]{0,128}:[^\s/?#@"'<>]{1,256})@/dg },
];

/** @deprecated The table is {@link SECRET_RULES}; kept for callers of 0.1. */
export const SECRET_PATTERNS: ReadonlyArray<{ rule: string; pattern: RegExp }> = SECRET_RULES;

// Every rule starts with one of these (or needs its context word). Case-sensitive, with the
// spellings that occur, because a case-insensitive alternation costs twice as much per byte.
export const PLAIN_ANCHOR =
  /sk[-_]|rk_|gh[pousr]_|github_pat_|xox|hf_|gsk_|xai-|ek_|AIza|ya29|ABSK|AKIA|ASIA|eyJ|PRIVATE KEY|[Bb]earer|BEARER|Basic|\/\/|aws|AWS|Aws|api[-_]?key|API[-_]?KEY|Api-Key|subscription[-_]key|Subscription-Key|[Aa]zure|AZURE/;

// A key in base64 is at least 24 characters of its alphabet in a row; such runs are decoded and
// their text is looked at (ids and hashes decode to noise that holds no anchor).
// Found by a loop, not a regular expression: `[A-Za-z0-9+/_-]{24}` retries at every character of
// a long word, and costs ten times the anchors on a stream's text.
const BASE64_MIN_RUN = 24;
const BASE64_CHAR = new Uint8Array(128);
for (const character of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-') BASE64_CHAR[character.charCodeAt(0)] = 1;

function base64Runs(text: string, onlyFirst: boolean): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  const isBase64 = (index: number): boolean => {
    const code = text.charCodeAt(index);
    return code < 128 && BASE64_CHAR[code] === 1;
  };
  // Skips ahead as Boyer-Moore does: when the last character of a window is not base64, no run
  // can start in that window. `at` always follows a character that is not base64 (or is 0), so a
  // run found there is whole.
  let at = 0;
  while (at + BASE64_MIN_RUN <= text.length) {
    if (!isBase64(at + BASE64_MIN_RUN - 1)) {
      at += BASE64_MIN_RUN;
      continue;
    }
    let back = at + BASE64_MIN_RUN - 2;
    while (back >= at && isBase64(back)) back--;
    if (back >= at) {
      at = back + 1;
      continue;
    }
    let end = at + BASE64_MIN_RUN;
    for (;;) {
      while (end < text.length && isBase64(end)) end++;
      // MIME wraps base64 into lines (76 characters and a CRLF): the run goes on past a line break,
      // as written or as a JSON string escapes it.
      const wrap = lineBreakAt(text, end);
      if (wrap === 0 || !isBase64(end + wrap)) break;
      end += wrap;
    }
    let padded = end;
    while (padded < text.length && padded - end < 2 && text[padded] === '=') padded++;
    runs.push([at, padded]);
    if (onlyFirst) return runs;
    at = end + 1;
  }
  return runs;
}

// The length of the line break at `index` (CRLF, LF or CR, raw or JSON-escaped as `\r\n` or
// `\u000d\u000a`), or 0.
function lineBreakAt(text: string, index: number): number {
  const code = text.charCodeAt(index);
  if (code === 0x0a) return 1;
  if (code === 0x0d) return text.charCodeAt(index + 1) === 0x0a ? 2 : 1;
  if (code !== 0x5c) return 0;
  if (text.startsWith('\\n', index)) return 2;
  if (text.startsWith('\\r', index)) return text.startsWith('\\n', index + 2) ? 4 : 2;
  if (text.startsWith('\\u000a', index) || text.startsWith('\\u000A', index)) return 6;
  if (text.startsWith('\\u000d', index) || text.startsWith('\\u000D', index)) return /^\\u000[aA]/.test(text.slice(index + 6, index + 12)) ? 12 : 6;
  return 0;
}

// A base64 run's text, read at each of the four alignments: a key's base64 glued to other base64
// characters (`xyz` + base64 of a key) decodes to noise at the run's own alignment only.
function base64Readings(run: string): string[] {
  const clean = withoutLineBreaks(run);
  const readings = [Buffer.from(clean, 'base64').toString('latin1')];
  for (let offset = 1; offset < 4 && offset < clean.length; offset++) readings.push(Buffer.from(clean.slice(offset), 'base64').toString('latin1'));
  return readings;
}

const withoutLineBreaks = (run: string): string =>
  run.includes('\\') || run.includes('\n') || run.includes('\r') ? run.replace(/\\[rn]|\\u000[adAD]|[\r\n]/g, '') : run;

const mayBeBase64 = (text: string): boolean => text.length >= BASE64_MIN_RUN && base64Runs(text, true).length > 0;
const PERCENT_RUN = /[A-Za-z0-9%._~+:/=-]*%[0-9A-Fa-f]{2}[A-Za-z0-9%._~+:/=-]*/g;

// A key's characters written as escapes: JSON and JavaScript (`\u0073k-…`, `\x73`, a raw SSE frame
// keeps them as the provider wrote them) and HTML character references (`&#115;`, `&#x73;`,
// `&hyphen;`). A run of key characters and escapes holding one is decoded and looked at.
const ESCAPE =
  /\\u[0-9A-Fa-f]{4}|\\u\{[0-9A-Fa-f]{1,6}\}|\\x[0-9A-Fa-f]{2}|\\[0-7]{1,3}|\\\/|&#[0-9]{1,12};?|&#[xX][0-9A-Fa-f]{1,12};?|&(?:hyphen|dash|lowbar|UnderBar|period|sol|plus|equals|colon|num|amp);/;
// Its alternatives start apart (a key character, `\` then one letter or digit, `&#` or `&` then a
// letter), so the run never backtracks far. A numeric reference may lack its `;` (browsers read
// `&#115k` as `sk`) and pad its digits with zeros.
const ESCAPED_RUN =
  /(?:[A-Za-z0-9._~+/=:@-]|\\u[0-9A-Fa-f]{4}|\\u\{[0-9A-Fa-f]{1,6}\}|\\x[0-9A-Fa-f]{2}|\\[0-7]{1,3}|\\[nrtbf/"]|&#[0-9]{1,12};?|&#[xX][0-9A-Fa-f]{1,12};?|&[A-Za-z]{2,8};)+/g;
const ESCAPE_IN_RUN =
  /\\u([0-9A-Fa-f]{4})|\\u\{([0-9A-Fa-f]{1,6})\}|\\x([0-9A-Fa-f]{2})|\\([0-7]{1,3})|\\([nrtbf/"])|&#([0-9]{1,12});?|&#[xX]([0-9A-Fa-f]{1,12});?|&([A-Za-z]{2,8});/g;
const NAMED_CHARACTER: Record<string, string> = {
  hyphen: '-',
  dash: '-',
  lowbar: '_',
  UnderBar: '_',
  period: '.',
  sol: '/',
  plus: '+',
  equals: '=',
  colon: ':',
  num: '#',
  amp: '&',
};
const SHORT_ESCAPE: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', '/': '/', '"': '"' };

// Cheap tests first: a stream's line is full of `\"`, which escapes nothing a key holds; every
// ESCAPE starts with `&`, or with `\u`, `\x`, `\/` or `\` and an octal digit.
const ESCAPE_START = /\\[ux/0-7]/;
const mayBeEscaped = (text: string): boolean => (text.includes('&') || ESCAPE_START.test(text)) && ESCAPE.test(text);

function unescapeRun(run: string): string {
  return run.replace(
    ESCAPE_IN_RUN,
    (escape, unicode?: string, braced?: string, hex?: string, octal?: string, short?: string, decimal?: string, hexReference?: string, name?: string) => {
      const code = unicode ?? braced ?? hex ?? hexReference;
      if (code !== undefined) return codePoint(Number.parseInt(code, 16)) ?? escape;
      if (octal !== undefined) return String.fromCharCode(Number.parseInt(octal, 8));
      if (decimal !== undefined) return codePoint(Number.parseInt(decimal, 10)) ?? escape;
      if (short !== undefined) return SHORT_ESCAPE[short]!;
      return NAMED_CHARACTER[name!] ?? escape;
    },
  );
}

const codePoint = (code: number): string | undefined => (code <= 0x10ffff ? String.fromCodePoint(code) : undefined);

// A property or header named like this makes a bare value a key (`"api-key": "<32 hex>"`).
const CONTEXT_NAME = /api[-_]?key|subscription[-_]key|azure|aws|secret/i;

/**
 * A cheap pre-filter: false only when the text cannot hold anything {@link secretSpans} finds.
 * It may say true for text that holds none (then the rules decide).
 */
export function mayHoldSecret(text: string): boolean {
  return PLAIN_ANCHOR.test(text) || text.includes('%') || mayBeEscaped(text) || text.includes('\u0000') || LOOKALIKE.test(text) || mayBeBase64(text);
}

/**
 * Every credential in `text`, in order, without overlaps. Finds keys as written, percent-encoded
 * (`sk%2Dproj…`) and base64-encoded (`Basic …`, a key in a base64 field). `context` is the name
 * the text was found under (a property or header name): under `api-key`, `aws_secret…`, a bare
 * 32-hex or 40-character value is a key.
 */
export function secretSpans(text: string, context?: string): SecretSpan[] {
  return spansAt(text, context, 0);
}

// What one decoding gives is read as text again, so two encodings stacked are found (HTML
// references of a percent-encoded key, base64 of `\u` escapes, base64 twice); what a second
// decoding gives is only looked at for a key as written.
const MAX_DECODINGS = 2;

function spansAt(text: string, context: string | undefined, depth: number): SecretSpan[] {
  if (!mayHoldSecret(text) && (context === undefined || !CONTEXT_NAME.test(context))) return [];
  const spans: SecretSpan[] = [];
  if (context !== undefined && CONTEXT_NAME.test(context)) {
    const prefix = `${context}=`;
    for (const span of plainSpans(prefix + text)) {
      const index = span.index - prefix.length;
      if (index + span.length > 0) spans.push({ rule: span.rule, index: Math.max(0, index), length: span.length + Math.min(0, index) });
    }
  } else if (PLAIN_ANCHOR.test(text)) spans.push(...plainSpans(text));
  if (text.includes('%')) encodedSpans(text, PERCENT_RUN, percentDecode, 'url-encoded', spans, depth);
  if (mayBeEscaped(text)) encodedSpans(text, ESCAPED_RUN, unescapeRun, 'escaped', spans, depth);
  if (mayBeBase64(text)) {
    for (const [start, end] of base64Runs(text, false)) {
      const rule = ruleInBase64(text.slice(start, end), depth);
      if (rule !== undefined) spans.push({ rule, index: start, length: end - start });
    }
  }
  if (text.includes('\u0000')) spans.push(...spansWithoutNuls(text, context, depth));
  if (LOOKALIKE.test(text)) spans.push(...spansOfLookalikes(text, context, depth));
  return withoutOverlaps(spans);
}

// What a decoded run holds: read as text again while decodings remain, else as written.
function innerSpans(decoded: string, depth: number): SecretSpan[] {
  if (depth + 1 < MAX_DECODINGS) return spansAt(decoded, undefined, depth + 1);
  return PLAIN_ANCHOR.test(decoded) ? plainSpans(decoded) : [];
}

// Characters that stand in for a key's own: zero-width characters (dropped), fullwidth forms
// (`ｓｋ－` for `sk-`), the Unicode hyphens and the minus sign. Not the en and em dashes: prose
// is full of them, and no key is written with one.
const LOOKALIKE = /[\u200b-\u200d\u2060\ufeff\uff01-\uff5e\u2010\u2011\u2212]/;
function lookalikeOf(code: number): string | undefined {
  if ((code >= 0x200b && code <= 0x200d) || code === 0x2060 || code === 0xfeff) return '';
  if (code >= 0xff01 && code <= 0xff5e) return String.fromCharCode(code - 0xfee0);
  if (code === 0x2010 || code === 0x2011 || code === 0x2212) return '-';
  return undefined;
}

// UTF-16 (or UTF-32) text of an ASCII key, read as bytes or stored as text (`k\u0000e\u0000y`),
// at any alignment, is the key without its NULs. NULs fill a binary body: they are dropped
// natively, and positions are mapped back only when a key is found.
function spansWithoutNuls(text: string, context: string | undefined, depth: number): SecretSpan[] {
  const found = spansAt(text.replaceAll('\u0000', ''), context, depth);
  if (found.length === 0) return found;
  const rawIndex: number[] = [];
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) !== 0) rawIndex.push(index);
  return mappedBack(found, rawIndex, 'utf-16');
}

// A key written with lookalikes is the key with them replaced (zero-width ones dropped).
function spansOfLookalikes(text: string, context: string | undefined, depth: number): SecretSpan[] {
  let changed = '';
  const rawIndex: number[] = [];
  for (let index = 0; index < text.length; index++) {
    const stand = lookalikeOf(text.charCodeAt(index));
    if (stand === '') continue;
    changed += stand ?? text[index];
    rawIndex.push(index);
  }
  return mappedBack(spansAt(changed, context, depth), rawIndex, 'lookalike');
}

// Spans found in a changed text, over the characters of the original they came from.
function mappedBack(found: SecretSpan[], rawIndex: readonly number[], what: string): SecretSpan[] {
  return found.map((span) => {
    const start = rawIndex[span.index]!;
    const end = rawIndex[span.index + span.length - 1]! + 1;
    return { rule: span.rule.endsWith(` ${what}`) ? span.rule : `${span.rule} ${what}`, index: start, length: end - start };
  });
}

// Decoded bytes that read as text (printable ASCII, mostly) are worth reading again; an id's or a
// hash's bytes are noise.
function readsAsText(decoded: string): boolean {
  const length = Math.min(decoded.length, 128);
  let printable = 0;
  for (let index = 0; index < length; index++) {
    const code = decoded.charCodeAt(index);
    if ((code >= 0x20 && code < 0x7f) || code === 9 || code === 10 || code === 13) printable++;
  }
  return printable >= length * 0.9;
}

// The rule a base64 run hides a key under, or undefined: decoded at each alignment; what reads as
// text is read again (a key encoded twice, percent-encoded or escaped, then base64-encoded).
function ruleInBase64(run: string, depth: number): string | undefined {
  for (const reading of base64Readings(run)) {
    const inner = readsAsText(reading) ? innerSpans(reading, depth) : PLAIN_ANCHOR.test(reading) ? plainSpans(reading) : [];
    if (inner.length > 0) return inner[0]!.rule.endsWith(' base64') ? `${inner[0]!.rule} twice` : `${inner[0]!.rule} base64`;
  }
  return undefined;
}

// The same question, asked of a tape line: only whether some reading may hold a key. A line's
// runs are mostly hashes and long names (`completion_tokens_details`), whose readings are noise:
// each is decoded into one reused buffer and looked at as bytes, and made a string only when it
// holds a pair of characters an anchor starts with, or reads as text.
export function base64HidesAnchor(run: string, depth: number): boolean {
  const clean = withoutLineBreaks(run);
  for (let offset = 0; offset < 4 && (offset === 0 || offset < clean.length); offset++) {
    const reading = offset === 0 ? clean : clean.slice(offset);
    // Buffer.from(reading, 'base64') writes these bytes: the same decoder, into a buffer of its size.
    const size = Buffer.byteLength(reading, 'base64');
    if (decodeBuffer.length < size) decodeBuffer = Buffer.allocUnsafe(Math.max(size, decodeBuffer.length * 2));
    const length = decodeBuffer.write(reading, 0, size, 'base64');
    const head = Math.min(length, 128);
    let printable = 0;
    let pair = false;
    for (let index = 0; index < length; index++) {
      const code = decodeBuffer[index]!;
      if (code === 0) return true;
      if (index < head && ((code >= 0x20 && code < 0x7f) || code === 9 || code === 10 || code === 13)) printable++;
      if (!pair && index > 0 && ANCHOR_PAIRS[(decodeBuffer[index - 1]! << 8) | code] === 1) pair = true;
    }
    const text = depth + 1 < MAX_DECODINGS && printable >= head * 0.9;
    if (!pair && !text) continue;
    const decoded = decodeBuffer.toString('latin1', 0, length);
    if (pair && PLAIN_ANCHOR.test(decoded)) return true;
    if (text && mayHoldSecret(decoded)) return true;
  }
  return false;
}

let decodeBuffer = Buffer.allocUnsafe(4096);

/**
 * Which pairs of neighbouring characters (`(first << 8) | second`) begin a spelling PLAIN_ANCHOR
 * matches, read from its source: text without such a pair holds no anchor. The source is a list of
 * alternatives made of characters, escaped characters and character classes; anything else there
 * throws, so an edit to it that this reading cannot follow fails at once.
 */
export const ANCHOR_PAIRS: Uint8Array = anchorPairs(PLAIN_ANCHOR.source);

function anchorPairs(source: string): Uint8Array {
  const table = new Uint8Array(1 << 16);
  for (const alternative of source.split('|')) {
    const sets: number[][] = [];
    let at = 0;
    while (sets.length < 2) {
      let set: number[];
      if (alternative[at] === '[') {
        const end = alternative.indexOf(']', at);
        const members = alternative.slice(at + 1, end);
        if (end < 0 || /^\^|.-.|\\/.test(members)) throw new Error(`PLAIN_ANCHOR: cannot read the class in ${alternative}`);
        set = [...members].map((character) => character.charCodeAt(0));
        at = end + 1;
      } else if (alternative[at] === '\\') {
        if (/[A-Za-z0-9]/.test(alternative[at + 1] ?? 'x')) throw new Error(`PLAIN_ANCHOR: cannot read the escape in ${alternative}`);
        set = [alternative.charCodeAt(at + 1)];
        at += 2;
      } else {
        if (at >= alternative.length || /[()?*+{.^$]/.test(alternative[at]!)) throw new Error(`PLAIN_ANCHOR: cannot read ${alternative}`);
        set = [alternative.charCodeAt(at)];
        at += 1;
      }
      // A quantifier would make the character optional or repeated: not a fixed pair.
      if (/[?*+{]/.test(alternative[at] ?? '')) throw new Error(`PLAIN_ANCHOR: cannot read the quantifier in ${alternative}`);
      sets.push(set);
    }
    for (const first of sets[0]!) for (const second of sets[1]!) table[(first << 8) | second] = 1;
  }
  return table;
}

/** `text` with every credential replaced by a marker naming its kind and size: `[openai-key 44 chars]`. */
export function maskSecrets(text: string, context?: string): string {
  const spans = secretSpans(text, context);
  if (spans.length === 0) return text;
  let masked = '';
  let at = 0;
  for (const span of spans) {
    masked += text.slice(at, span.index) + secretMarker(span);
    at = span.index + span.length;
  }
  return masked + text.slice(at);
}

/**
 * `text` masked, then cut to at most `max` characters (the last one `ellipsis`): what every
 * message that quotes a value shows. Masking first matters: a key cut short no longer looks like
 * one, and its first characters would show.
 */
export function excerpt(text: string, max: number, ellipsis = '…'): string {
  // A key that starts before the cut is whole in this much (keys are far shorter; a private-key
  // block cut short is still one).
  const masked = maskSecrets(text.length > max + 512 ? text.slice(0, max + 512) : text);
  return masked.length > max ? `${masked.slice(0, max - ellipsis.length)}${ellipsis}` : masked;
}

/** The marker that stands for a credential in every output. Never any part of the key. */
export function secretMarker(span: Pick<SecretSpan, 'rule' | 'length'>): string {
  return `[${span.rule} ${span.length} chars]`;
}

/**
 * `value` with every string and property name masked by {@link maskSecrets}: the same value when
 * nothing needed masking, otherwise a copy (of the parts that changed; the rest is shared).
 */
export function maskValue<T>(value: T): T {
  return maskIn(value, undefined) as T;
}

function maskIn(value: unknown, name: string | undefined): unknown {
  if (typeof value === 'string') return maskSecrets(value, name);
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, index) => {
      const masked = maskIn(item, undefined);
      if (masked !== item) (copy ??= [...value])[index] = masked;
    });
    return maskAcrossItems(copy ?? value);
  }
  if (value instanceof Uint8Array) {
    const text = Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('latin1');
    return secretSpans(text).length === 0 ? value : new Uint8Array(Buffer.from(maskSecrets(text), 'latin1'));
  }
  if (typeof value === 'object' && value !== null && (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null)) {
    let changed = false;
    const entries = Object.entries(value).map(([property, item]) => {
      const maskedName = maskSecrets(property);
      const masked = property === 'base64' && typeof item === 'string' ? maskBase64(item) : maskIn(item, property);
      if (maskedName !== property || masked !== item) changed = true;
      return [maskedName, masked] as const;
    });
    if (!changed) return value;
    const result: Record<string, unknown> = Object.getPrototypeOf(value) === null ? Object.create(null) : {};
    for (const [property, item] of entries) Object.defineProperty(result, property, { value: item, enumerable: true, writable: true, configurable: true });
    return result;
  }
  return value;
}

/**
 * Every credential in a value, addressed by JSON access path from `root`: in strings and property
 * names; in `base64` payloads, decoded (gzip unwrapped, UTF-16 read as such); in the joined text
 * of an array's string pieces (`["sk-", "proj…"]`, content parts); and in a stream's frames,
 * joined (a key split across SSE deltas).
 */
export function findSecrets(value: unknown, root = '', serialized?: string): SecretLocation[] {
  // `serialized` is the value as JSON (a tape line). Every string and property name appears in it
  // as written, so when it shows no anchor, no percent sign and no base64 run holding a key, no
  // single string can hold one: only what is hidden from a reader of the line is looked for
  // (base64 payloads, keys split across pieces).
  const hiddenOnly = serialized !== undefined && !lineMayHoldSecret(serialized);
  // Nearly every value holds none: a first walk builds no paths, and only a value that holds one
  // is walked again to say where.
  const found: SecretLocation[] = [];
  walk(value, undefined, undefined, found, hiddenOnly);
  if (found.length === 0) return found;
  found.length = 0;
  walk(value, root, undefined, found, hiddenOnly);
  return found;
}

function lineMayHoldSecret(line: string): boolean {
  if (PLAIN_ANCHOR.test(line) || line.includes('%') || CONTEXT_IN_LINE.test(line) || mayBeEscaped(line) || LOOKALIKE.test(line)) return true;
  for (const [start, end] of base64Runs(line, false)) {
    const run = line.slice(start, end);
    // Long names (`completion_tokens_details`) come back in every answer of an API: their answer
    // is kept. Hashes (the key, the body's sha256) are new on every line and are not.
    const cacheable = run.length <= MAX_CACHED_RUN && !HEX_DIGEST.test(run);
    let hides = cacheable ? runsSeen.get(run) : undefined;
    if (hides === undefined) {
      hides = base64HidesAnchor(run, 0);
      if (cacheable) {
        if (runsSeen.size >= MAX_CACHED_RUNS) runsSeen.clear();
        runsSeen.set(run, hides);
      }
    }
    if (hides) return true;
  }
  return false;
}

const runsSeen = new Map<string, boolean>();
const MAX_CACHED_RUNS = 1024;
const MAX_CACHED_RUN = 128;
const HEX_DIGEST = /^[0-9a-f]{64}$/;

// The context names that make a bare value a key, in any case (CONTEXT_NAME), as a line holds them.
const CONTEXT_IN_LINE = /api[-_]?key|subscription[-_]key|azure|aws/i;

// `path` undefined: what is found is reported at no path (the first walk of findSecrets).
function walk(value: unknown, path: string | undefined, name: string | undefined, found: SecretLocation[], hiddenOnly: boolean): void {
  if (typeof value === 'string') {
    if (!hiddenOnly) report(secretSpans(value, name), path ?? '', found);
  } else if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++)
      walk(value[index], path === undefined ? undefined : indexPath(path, index), undefined, found, hiddenOnly);
    joinedPieces(value, path ?? '', found, hiddenOnly);
  } else if (typeof value === 'object' && value !== null) {
    for (const [property, item] of Object.entries(value)) {
      // A key used as a property name must not reappear whole in the path that reports it.
      const spans = hiddenOnly ? [] : secretSpans(property);
      const childPath = path === undefined ? undefined : propertyPath(path, spans.length === 0 ? property : maskSecrets(property));
      if (spans.length > 0) report(spans, `${childPath ?? ''} (the property name)`, found);
      if (property === 'base64' && typeof item === 'string') {
        for (const text of decodedTexts(Buffer.from(item, 'base64'))) report(secretSpans(text), `${childPath ?? ''} (decoded)`, found);
        continue;
      }
      walk(item, childPath, property, found, hiddenOnly);
      if (property === 'frames' && Array.isArray(item)) joinedStream(item, (value as { format?: unknown }).format, childPath ?? '', found, hiddenOnly);
    }
  }
}

// A payload stored as base64: its bytes, decoded every way findSecrets reads them (gzip, UTF-16),
// hold a key, so none of it is kept.
function maskBase64(base64: string): string {
  for (const text of decodedTexts(Buffer.from(base64, 'base64'))) {
    const spans = secretSpans(text);
    if (spans.length > 0) return `[${spans[0]!.rule} in ${base64.length} base64 chars]`;
  }
  return base64;
}

// A key split across an array's strings (or one field of its objects): every piece of it is
// replaced by the marker of the whole key.
function maskAcrossItems(items: unknown[]): unknown[] {
  if (items.length < 2) return items;
  const groups = new Map<string, number[]>();
  items.forEach((item, index) => {
    if (typeof item === 'string') pushIndex(groups, '', index);
    else if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
      for (const [property, field] of Object.entries(item)) if (typeof field === 'string') pushIndex(groups, property, index);
    }
  });
  let result = items;
  for (const [property, indexes] of groups) {
    if (indexes.length < 2) continue;
    const read = (index: number) => (property === '' ? (result[index] as string) : ((result[index] as Record<string, string>)[property] as string));
    const pieces = indexes.map(read);
    const spans = spansAcrossPieces(pieces, false);
    if (spans.length === 0) continue;
    result = [...result];
    let start = 0;
    indexes.forEach((index, position) => {
      const piece = pieces[position]!;
      let masked = piece;
      for (const span of [...spans].reverse()) {
        const from = Math.max(span.index - start, 0);
        const to = Math.min(span.index + span.length - start, piece.length);
        if (from < to) masked = masked.slice(0, from) + secretMarker(span) + masked.slice(to);
      }
      start += piece.length;
      result[index] = property === '' ? masked : { ...(result[index] as object), [property]: masked };
    });
  }
  return result;
}

function pushIndex(groups: Map<string, number[]>, name: string, index: number): void {
  const indexes = groups.get(name);
  if (indexes) indexes.push(index);
  else groups.set(name, [index]);
}

function report(spans: SecretSpan[], path: string, found: SecretLocation[]): void {
  for (const span of spans) {
    if (!found.some((location) => location.path === path && location.rule === span.rule)) found.push({ path, rule: span.rule, masked: secretMarker(span) });
  }
}

const GZIP_SCAN_LIMIT = 64 * 1024 * 1024;

// The bytes of a base64 payload as text, every way a key could be read from them: as bytes, and
// gunzipped. UTF-16 and UTF-32 need no decoding of their own: secretSpans reads text without its
// NULs too.
function decodedTexts(bytes: Buffer): string[] {
  const texts = [bytes.toString('latin1')];
  // Gzip inside gzip is unwrapped too, a few layers deep.
  let layer = bytes;
  for (let depth = 0; depth < 4 && layer[0] === 0x1f && layer[1] === 0x8b; depth++) {
    try {
      // A gzip bomb is never inflated: a body that decodes to more than this is scanned as its
      // compressed bytes only (a limit the README names).
      layer = gunzipSync(layer, { maxOutputLength: GZIP_SCAN_LIMIT });
    } catch {
      // Not gzip after all: the bytes as they are were scanned.
      break;
    }
    texts.push(layer.toString('latin1'));
  }
  return texts;
}

// A key split across an array's items: its strings joined, and each `.field` of its objects
// joined. Only what was not found in one piece is reported.
function joinedPieces(items: unknown[], path: string, found: SecretLocation[], hiddenOnly = false): void {
  if (items.length < 2) return;
  const groups = new Map<string, string[]>();
  for (const item of items) {
    if (typeof item === 'string') push(groups, '', item);
    else if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
      for (const [property, field] of Object.entries(item)) if (typeof field === 'string' && property !== 'base64') push(groups, property, field);
    }
  }
  for (const [property, pieces] of groups) {
    if (pieces.length < 2) continue;
    const spans = spansAcrossPieces(pieces, hiddenOnly);
    if (spans.length > 0) report(spans, `${path}[*]${property === '' ? '' : propertyPath('', property)} (joined)`, found);
  }
}

// A stream's frames: the raw text joined (a key split across chunks), and every JSON string
// field inside the frames joined by its name (a key split across deltas: `"content":"sk-"`,
// `"content":"proj…"`).
const JSON_FIELD = /"([^"\\]{1,64})":\s*"([^"\\]*(?:\\.[^"\\]*)*)"/g;

function joinedStream(frames: unknown[], format: unknown, path: string, found: SecretLocation[], hiddenOnly = false): void {
  const texts: string[] = [];
  for (const frame of frames) {
    if (typeof frame !== 'object' || frame === null) continue;
    const { text, base64, event } = frame as { text?: unknown; base64?: unknown; event?: unknown };
    if (typeof text === 'string') texts.push(text);
    else if (typeof base64 === 'string') texts.push(Buffer.from(base64, 'base64').toString('latin1'));
    else if (typeof event === 'object' && event !== null) {
      // An AWS event stream message: its payload, and the payload its `bytes` carries, as JSON
      // text whose fields are joined across messages like an SSE event's.
      const { json, text: payload, bytes } = event as { json?: unknown; text?: unknown; bytes?: { json?: unknown; text?: unknown } };
      texts.push(typeof payload === 'string' ? payload : (JSON.stringify(json) ?? ''));
      if (typeof bytes === 'object' && bytes !== null) texts.push(typeof bytes.text === 'string' ? bytes.text : (JSON.stringify(bytes.json) ?? ''));
    }
  }
  if (texts.length < 2) return;
  const fields = new Map<string, string[]>();
  for (const text of texts) {
    if (!text.includes('"')) continue;
    // exec, not matchAll (which copies the expression for every frame); nothing in the loop uses JSON_FIELD.
    JSON_FIELD.lastIndex = 0;
    for (let match = JSON_FIELD.exec(text); match !== null; match = JSON_FIELD.exec(text)) push(fields, unescapeJson(match[1]!), unescapeJson(match[2]!));
  }
  // SSE events, NDJSON lines and event stream messages are whole: a key split across them is
  // split across their fields.
  if (format !== 'sse' && format !== 'ndjson' && format !== 'eventstream') {
    const raw = spansAcrossPieces(texts, hiddenOnly);
    if (raw.length > 0) report(raw, `${path}[*] (joined)`, found);
  }
  for (const [name, pieces] of fields) {
    if (pieces.length < 2) continue;
    const spans = spansAcrossPieces(pieces, hiddenOnly);
    if (spans.length > 0) report(spans, `${path}[*] ${JSON.stringify(name)} (joined)`, found);
  }
}

// `hiddenOnly`: the pieces' line showed no anchor, percent sign or base64 key, so only a key whose
// anchor spans a boundary between pieces can be new.
function spansAcrossPieces(pieces: string[], hiddenOnly: boolean): SecretSpan[] {
  // Repeated pieces (a stream's id, model, object on every event) cannot hide a split key.
  if (pieces.every((piece) => piece === pieces[0])) return [];
  const joined = pieces.join('');
  if (hiddenOnly ? !anchorAcrossBoundaries(joined, pieces) : !mayHoldSecret(joined)) return [];
  const spans = secretSpans(joined);
  if (spans.length === 0) return spans;
  // A key whole inside one piece was reported where that piece is: only what none of the pieces
  // holds alone is new.
  const alone: Array<[number, number]> = [];
  let at = 0;
  for (const piece of pieces) {
    for (const span of secretSpans(piece)) alone.push([at + span.index, at + span.index + span.length]);
    at += piece.length;
  }
  let start = 0;
  const starts = pieces.map((piece) => ((start += piece.length), start - piece.length));
  return spans.filter((span) => {
    const end = span.index + span.length;
    if (alone.some(([from, to]) => from < end && span.index < to)) return false;
    return starts.some((pieceStart) => pieceStart > span.index && pieceStart < end);
  });
}

// No anchor is longer than this ("Subscription-Key").
const LONGEST_ANCHOR = 16;

// Whether an anchor spans a boundary between two pieces: when the pieces' line shows no anchor, no
// piece holds one alone, so only the text around each boundary needs looking at.
function anchorAcrossBoundaries(joined: string, pieces: string[]): boolean {
  let boundary = 0;
  for (let index = 0; index < pieces.length - 1; index++) {
    boundary += pieces[index]!.length;
    if (PLAIN_ANCHOR.test(joined.slice(Math.max(0, boundary - LONGEST_ANCHOR + 1), boundary + LONGEST_ANCHOR - 1))) return true;
  }
  return false;
}

function push(groups: Map<string, string[]>, name: string, piece: string): void {
  const pieces = groups.get(name);
  if (pieces) pieces.push(piece);
  else groups.set(name, [piece]);
}

function unescapeJson(text: string): string {
  if (!text.includes('\\')) return text;
  try {
    return JSON.parse(`"${text}"`) as string;
  } catch {
    return text;
  }
}

function plainSpans(text: string): SecretSpan[] {
  const spans: SecretSpan[] = [];
  for (const { rule, pattern, accept } of SECRET_RULES) {
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      const [start, end] = match.indices?.[1] ?? [match.index, match.index + match[0].length];
      if (accept === undefined || accept(text.slice(start, end))) spans.push({ rule, index: start, length: end - start });
      if (match[0].length === 0) pattern.lastIndex++;
    }
  }
  return spans;
}

// A run of encoded text that decodes to a key is a key: the whole run is its span.
function encodedSpans(text: string, run: RegExp, decode: (run: string) => string, encoding: string, spans: SecretSpan[], depth: number): void {
  // matchAll works on a copy of `run`: reading a decoded run again may use the same expression.
  for (const match of text.matchAll(run)) {
    const decoded = decode(match[0]);
    if (decoded === match[0]) continue;
    const inner = innerSpans(decoded, depth);
    if (inner.length > 0) spans.push({ rule: `${inner[0]!.rule} ${encoding}`, index: match.index, length: match[0].length });
  }
}

// Decoded as long as it changes, up to 8 times: a key encoded twice (`%2573k-…`) is still a key.
function percentDecode(text: string): string {
  let decoded = text;
  for (let round = 0; round < 8 && decoded.includes('%'); round++) {
    const next = percentDecodeOnce(decoded);
    if (next === decoded) break;
    decoded = next;
  }
  return decoded;
}

function percentDecodeOnce(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (sequence) => {
    try {
      return decodeURIComponent(sequence);
    } catch {
      return Buffer.from(sequence.replace(/%/g, ''), 'hex').toString('latin1');
    }
  });
}

function withoutOverlaps(spans: SecretSpan[]): SecretSpan[] {
  if (spans.length < 2) return spans;
  spans.sort((a, b) => a.index - b.index || b.length - a.length);
  const kept: SecretSpan[] = [];
  for (const span of spans) {
    const last = kept[kept.length - 1];
    if (last !== undefined && span.index < last.index + last.length) {
      const end = Math.max(last.index + last.length, span.index + span.length);
      last.length = end - last.index;
    } else kept.push({ ...span });
  }
  return kept;
}
