/**
 * The tape format: the spec every other part of modeltape reads and writes.
 *
 * A tape is a JSONL file. Line 1 is a {@link TapeHeader}; every later line is one
 * {@link Exchange}. Each line is the canonical JSON of its object (keys sorted at every depth,
 * no whitespace), so loading a tape and writing it back gives the same bytes.
 *
 * The schema is closed: a field not named here is an error, except a field whose name starts
 * with `_`, which is an author's note. Notes are allowed on every object of the format (not
 * inside recorded payloads, which are kept as they were) and survive a round trip.
 *
 * Changing this format is a breaking change: bump {@link TAPE_SCHEMA_VERSION}. A version only
 * adds what the one before it lacked, so every line of an older version is a valid line of a newer
 * one and this code reads every version in {@link READABLE_TAPE_SCHEMA_VERSIONS}. A tape keeps
 * the version it was created with: lines appended to an older tape may use the newer fields (an
 * older modeltape names them as unknown); `modeltape rekey` rewrites the header to the current one.
 *
 * - Version 1: the first format.
 * - Version 2: a JSON response body carries the `sha256` of the exact bytes the client received
 *   and, when they were not compact JSON, the {@link JsonLayout} that gives them back
 *   (indentation, `\u` escapes, a trailing newline, integer-like key order, exact number text).
 * - Version 3: an exchange carries `recordedAt`, the UTC date it was recorded on, which
 *   `modeltape report` ages and `--max-age` checks. It is kept out of the key and out of the answer.
 * - Version 4: provenance. A request carries `client`, the headers by which the client announced
 *   its name and version ({@link CLIENT_HEADERS}); a response carries `answeredModel`, the model
 *   the answer says answered. Both are read once at record time, kept out of the key and never
 *   served; `modeltape recheck` and `modeltape report` show them.
 */

/** The version of the tape format this code writes. */
export const TAPE_SCHEMA_VERSION = 4;

/** Every tape version this code reads. */
export const READABLE_TAPE_SCHEMA_VERSIONS = [1, 2, 3, 4] as const;

/** An author's note: any field whose name starts with `_`. */
export type Notes = { [note: `_${string}`]: unknown };

/** Line 1 of every tape. */
export type TapeHeader = Notes & {
  /**
   * The tape format version the tape was created with: {@link TAPE_SCHEMA_VERSION} for tapes this
   * code creates, any of {@link READABLE_TAPE_SCHEMA_VERSIONS} for tapes it reads.
   */
  schemaVersion: number;
  /** The tool and version that created the tape, e.g. `modeltape@0.1.0`. */
  writtenBy: string;
  /** The rules every key in this tape was computed with. */
  keyRules: KeyRules;
};

/**
 * What decides whether two requests are "the same request". Recorded in the header so a tape
 * says how it was keyed; keys are re-derivable from each line's request and these rules.
 */
export type KeyRules = Notes & {
  /**
   * Request headers that are part of the key, lowercase and sorted. Only headers that change
   * what the provider does belong here (see {@link DEFAULT_KEY_HEADERS}).
   */
  headers: string[];
  /** Rewrites applied, in order, to a JSON request body before it is keyed. */
  normalizers: Normalizer[];
};

/**
 * Replaces a volatile part of a JSON request body (or of its path) with a placeholder before
 * keying, identically at record and at replay. The stored request keeps the original value.
 */
export type Normalizer = PathNormalizer | PatternNormalizer;

/** What a pattern normalizer rewrites before keying. */
export const NORMALIZER_TARGETS = ['body', 'path'] as const;
export type NormalizerTarget = (typeof NORMALIZER_TARGETS)[number];

/** Replaces the whole value at a JSON path. */
export type PathNormalizer = Notes & {
  /**
   * A JSON access path: `.metadata.request_id`, `.messages[0].content`, `.messages[*].content`
   * (`[*]` and `.*` match every element or property).
   */
  path: string;
  /** @default "<normalized>" */
  placeholder?: string;
};

/**
 * Replaces every match of a regular expression inside every string of the body, or (`in:
 * "path"`) inside the request's path: an Azure OpenAI deployment name that differs between
 * resources, `{ "pattern": "/deployments/[^/]+/", "in": "path", "placeholder": "/deployments/<deployment>/" }`.
 */
export type PatternNormalizer = Notes & {
  /** A JavaScript regular expression source, e.g. `\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z`. */
  pattern: string;
  /** What it rewrites: the JSON body's strings, or the path (without the query). @default "body" */
  in?: NormalizerTarget;
  /** Regular expression flags; `g` is always added. @default "" */
  flags?: string;
  /** @default "<normalized>" */
  placeholder?: string;
};

/** Request headers that are part of the key by default: each changes what the provider does. */
export const DEFAULT_KEY_HEADERS: readonly string[] = ['anthropic-beta', 'anthropic-version', 'openai-beta'];

/** Where an exchange came from. */
export const EXCHANGE_SOURCES = ['live', 'fake'] as const;
export type ExchangeSource = (typeof EXCHANGE_SOURCES)[number];

/**
 * The response header every modeltape FakeProvider response carries. A recorder that sees it
 * labels the exchange `source: "fake"`.
 */
export const FAKE_RESPONSE_HEADER = 'x-modeltape-fake';

/** One request and the response it got. */
export type Exchange = Notes & {
  /** sha256 (hex) of the canonical key inputs; see `exchangeKey`. */
  key: string;
  /** 0 for the first exchange with this key, 1 for the second identical request, and so on. */
  ordinal: number;
  /** The name of the upstream the request went to, e.g. `openai`, `anthropic`. */
  upstream: string;
  /** `live` when a real provider answered; `fake` when a FakeProvider did. */
  source: ExchangeSource;
  /**
   * The UTC date the exchange was recorded on, `YYYY-MM-DD` (schemaVersion 3); absent on an
   * exchange recorded before modeltape kept dates. Not part of the key or of the answer.
   */
  recordedAt?: string;
  request: RecordedRequest;
  response: RecordedResponse;
};

/** A request as sent upstream, minus secrets and per-call noise. */
export type RecordedRequest = Notes & {
  /** Uppercase HTTP method. */
  method: string;
  /** The path on the upstream, without the query (e.g. `/v1/messages`). */
  path: string;
  /** Query parameters as `[name, value]` pairs, sorted, with key-like parameters removed. */
  query: Array<[string, string]>;
  /** The key headers in force (see {@link KeyRules.headers}) plus `content-type`. */
  headers: Record<string, string>;
  /**
   * The body as sent; absent when the request had none. A JSON request body holds only `json`
   * (its key is computed from `json`; its exact bytes are fingerprinted by `bodySha256`), never a
   * `layout` or `sha256`.
   */
  body?: Body;
  /** sha256 (hex) of the exact raw request body bytes, of the empty string when there were none. */
  bodySha256: string;
  /**
   * The client that sent the request, as its headers announced it (schemaVersion 4): those of
   * {@link CLIENT_HEADERS} it carried, lowercase, each as sent (`"user-agent": "OpenAI/JS 4.67.3"`,
   * `"x-stainless-package-version": "4.67.3"`); a value holding anything shaped like a credential
   * is left out. Absent when it sent none, and on exchanges recorded before modeltape kept it.
   * Never part of the key, never compared at replay.
   * @example {"user-agent":"Anthropic/JS 0.39.0","x-stainless-lang":"js","x-stainless-package-version":"0.39.0"}
   */
  client?: Record<string, string>;
};

/**
 * The request headers a client announces itself by, which a recording keeps in
 * {@link RecordedRequest.client}: the user agent, the Stainless SDKs' (OpenAI's, Anthropic's)
 * language and package version, Google's API client, the AWS SDK's user agent. The runtime's
 * version (`x-stainless-runtime-version`) is not the client's, and would change a recording
 * with the machine that made it: it is left out.
 */
export const CLIENT_HEADERS = ['user-agent', 'x-amz-user-agent', 'x-goog-api-client', 'x-stainless-lang', 'x-stainless-package-version'] as const;

/**
 * A payload, in the first of these forms that represents it faithfully:
 * `json` (parsed, when the content type is JSON and it parses), `text` (valid UTF-8),
 * `base64` (anything else).
 */
export type Body = JsonBody | { text: string } | { base64: string };

/**
 * A JSON payload, parsed, so a tape shows the answer as JSON.
 *
 * A response body recorded since schemaVersion 2 gives back the exact bytes the client received:
 * `json` rendered with `layout` was checked at record time to hash to `sha256`; bytes no layout
 * reproduces (irregular spacing, a duplicate name, an unusual escape in a name, a layout larger
 * than half the body) were stored as `text` instead. A body without `sha256` (a request body, or a
 * response from a version 1 tape) is served as compact JSON, `JSON.stringify(json)`.
 *
 * @example {"json":{"id":"chatcmpl-1","object":"chat.completion"},"layout":{"ascii":true,"indent":"  ","trailing":"\n"},"sha256":"9f86…"}
 */
export interface JsonBody {
  /**
   * The payload, as `JSON.parse` reads it: what a JavaScript client sees. Kept in the key order
   * it arrived in (except that JavaScript puts integer-like names first; see
   * {@link JsonLayout.keyOrder}). A number beyond 2^53 holds its nearest double here and its exact
   * text in {@link JsonLayout.literals}.
   */
  json: unknown;
  /**
   * How the recorded bytes differ from compact `JSON.stringify(json)`. Absent: they do not.
   * Only on response bodies, always with `sha256`.
   */
  layout?: JsonLayout;
  /**
   * sha256 (hex) of the exact body bytes the client received (after any content-encoding was
   * removed). Only on response bodies. `modeltape verify` checks that `json` and `layout` still
   * give these bytes.
   */
  sha256?: string;
}

/**
 * How to write a parsed JSON payload back as the exact bytes it was recorded from. Every field is
 * optional; the empty layout is compact `JSON.stringify` output, and is written as no layout.
 * Paths are JSON access syntax into `json` (`.choices[0].logprobs`, `["10"]`), `""` for `json`
 * itself.
 */
export type JsonLayout = Notes & {
  /**
   * The whitespace of one level of indentation, e.g. `"  "` (OpenAI): every member and element on
   * its own line, `": "` after each name, empty objects and arrays as `{}` and `[]`, as
   * `JSON.stringify(json, null, indent)` writes. Absent: on one line.
   */
  indent?: string;
  /**
   * On one line with a space after every `,` and `:` (`{"a": 1, "b": [1, 2]}`, Python's
   * `json.dumps` default). Never with `indent`.
   */
  spaced?: true;
  /**
   * Every character from U+007F up written as a `\u` escape with lowercase hex (`"caf\u00e9"`, a
   * surrogate pair beyond U+FFFF), as Python's `json.dumps` writes by default and OpenAI sends.
   * Absent: written as UTF-8. Either way `"`, `\` and control characters are escaped as
   * `JSON.stringify` escapes them.
   */
  ascii?: true;
  /** Whitespace after the value, e.g. `"\n"`. */
  trailing?: string;
  /**
   * The recorded order of an object's names, by the object's path, for each object whose order
   * `json` cannot keep: JavaScript lists integer-like names (`"2"`, `"10"`) first, in numeric
   * order, whatever order they arrived in. @example {"": ["10", "2", "a"]}
   */
  keyOrder?: Record<string, string[]>;
  /**
   * The exact recorded text of each number or string, by path, that the rest of the layout would
   * write differently: a number beyond 2^53 (`9007199254740993`), `1.0`, `1e-05`, `-0`, a string
   * with an unusual escape (`"a\/b"`). Used only while the value at the path still equals what the
   * text reads as (so a hand edit of `json` is served as edited, and reported by verify).
   * @example {".id": "9007199254740993"}
   */
  literals?: Record<string, string>;
};

/** The response as the client received it (decoded: no content-encoding). */
export type RecordedResponse = Notes & {
  status: number;
  /** Response headers minus hop-by-hop, encoding and secret ones; lowercase names. */
  headers: Record<string, string | string[]>;
  /**
   * The body of a plain response. At most one of `body` and `stream` is present. A JSON body
   * carries its `sha256` and `layout` (schemaVersion 2), so replay serves the exact bytes.
   */
  body?: Body;
  /** The frames of a streamed response, each as received. */
  stream?: RecordedStream;
  /**
   * The model the answer says answered (schemaVersion 4), as its API names it: OpenAI's and
   * Anthropic's `model` (`gpt-4o-2024-08-06`), Gemini's `modelVersion`, Ollama's `model`. Read
   * once at record time; absent when the answer names none (Bedrock's Converse, an error) and on
   * exchanges recorded before modeltape kept it. Never served.
   */
  answeredModel?: string;
};

/**
 * The format of a streamed response, from its content type: `sse` (text/event-stream), `ndjson`
 * (application/x-ndjson), `eventstream` (AWS's binary event stream,
 * application/vnd.amazon.eventstream, as Bedrock's ConverseStream and
 * InvokeModelWithResponseStream answer), `chunks` (any other chunked body).
 */
export const STREAM_FORMATS = ['sse', 'ndjson', 'chunks', 'eventstream'] as const;
export type StreamFormat = (typeof STREAM_FORMATS)[number];

export type RecordedStream = Notes & {
  /**
   * `sse` for text/event-stream, `ndjson` for application/x-ndjson, `eventstream` for
   * application/vnd.amazon.eventstream, `chunks` otherwise.
   */
  format: StreamFormat;
  /** Concatenated in order, the frames are the exact response body bytes. */
  frames: Frame[];
};

/**
 * One SSE event (with its blank-line terminator), one NDJSON line (with its newline), one AWS event
 * stream message, or one received chunk, with when it arrived in milliseconds after the response
 * headers. Its bytes are `text` as UTF-8, `base64` decoded, or `event` encoded as an event stream
 * message (only in the `eventstream` format).
 */
export type Frame = Notes & { atMs: number } & ({ text: string } | { base64: string } | { event: EventStreamEvent });

/**
 * One message of an AWS event stream (format `eventstream`), readable: its headers and its payload.
 * Encoded again (prelude, headers, payload, both CRC32s) it gives back the exact bytes received:
 * the recorder keeps this form only after checking that, and keeps any other message (a header
 * that is not a string, a CRC that fails, a payload that is not UTF-8, a message cut off at the
 * end) as a `base64` frame of its raw bytes.
 *
 * The payload is `json` (compact JSON: the payload is `JSON.stringify(json)`), or `text` (UTF-8
 * that is not compact JSON, `""` for none). A payload that is a JSON object holding `bytes`, the
 * base64 of another payload (InvokeModelWithResponseStream's `chunk` events carry the model's own
 * event so), shows it decoded: `bytes` holds that inner payload as `json` or `text`, and `json`
 * the object's other members; the payload is then `{"bytes":"<base64>",…json}`, `bytes` first.
 *
 * @example {"headers":{":event-type":"contentBlockDelta",":content-type":"application/json",":message-type":"event"},"json":{"contentBlockIndex":0,"delta":{"text":"Hi"},"p":"abcd"}}
 * @example {"bytes":{"json":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}},"headers":{":event-type":"chunk",":content-type":"application/json",":message-type":"event"},"json":{"p":"abcdefgh"}}
 */
export type EventStreamEvent = Notes & {
  /**
   * The message's headers, each a string (type 7), in the order they were sent: `:event-type`,
   * `:content-type`, `:message-type` (`event` or `exception`), `:exception-type`.
   */
  headers: Record<string, string>;
} & ({ json: unknown; bytes?: EventStreamBytes } | { text: string });

/** The payload an event stream message carries in base64 as its JSON `bytes` member, decoded. */
export type EventStreamBytes = Notes & ({ json: unknown } | { text: string });

/** An exchange as loaded from a file, with where it came from. */
export interface LoadedExchange {
  exchange: Exchange;
  /** 1-based line number in the tape file. */
  line: number;
}
