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
 * Changing this format is a breaking change: bump {@link TAPE_SCHEMA_VERSION}.
 */

/** The version of the tape format this code reads and writes. */
export const TAPE_SCHEMA_VERSION = 1;

/** An author's note: any field whose name starts with `_`. */
export type Notes = { [note: `_${string}`]: unknown };

/** Line 1 of every tape. */
export type TapeHeader = Notes & {
  /** The tape format version. Always {@link TAPE_SCHEMA_VERSION} for tapes this code writes. */
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
 * Replaces a volatile part of a JSON request body with a placeholder before keying, identically
 * at record and at replay. The stored body keeps the original value.
 */
export type Normalizer = PathNormalizer | PatternNormalizer;

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

/** Replaces every match of a regular expression inside every string of the body. */
export type PatternNormalizer = Notes & {
  /** A JavaScript regular expression source, e.g. `\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z`. */
  pattern: string;
  /** Regular expression flags; `g` is always added. @default "" */
  flags?: string;
  /** @default "<normalized>" */
  placeholder?: string;
};

/** Request headers that are part of the key by default: each changes what the provider does. */
export const DEFAULT_KEY_HEADERS: readonly string[] = ['anthropic-beta', 'anthropic-version', 'openai-beta'];

/** Where an exchange came from. */
export type ExchangeSource = 'live' | 'fake';

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
  /** The body as sent; absent when the request had none. */
  body?: Body;
  /** sha256 (hex) of the exact raw request body bytes, of the empty string when there were none. */
  bodySha256: string;
};

/**
 * A payload, in the first of these forms that represents it faithfully:
 * `json` (parsed, when the content type is JSON and it parses), `text` (valid UTF-8),
 * `base64` (anything else).
 */
export type Body = { json: unknown } | { text: string } | { base64: string };

/** The response as the client received it (decoded: no content-encoding). */
export type RecordedResponse = Notes & {
  status: number;
  /** Response headers minus hop-by-hop, encoding and secret ones; lowercase names. */
  headers: Record<string, string | string[]>;
  /** The body of a plain response. Exactly one of `body` and `stream` is present. */
  body?: Body;
  /** The frames of a streamed response, each as received. */
  stream?: RecordedStream;
};

/** The format of a streamed response, from its content type. */
export type StreamFormat = 'sse' | 'ndjson' | 'chunks';

export type RecordedStream = Notes & {
  /** `sse` for text/event-stream, `ndjson` for application/x-ndjson, `chunks` otherwise. */
  format: StreamFormat;
  /** Concatenated in order, the frames are the exact response body bytes. */
  frames: Frame[];
};

/**
 * One SSE event (with its blank-line terminator), one NDJSON line (with its newline), or one
 * received chunk, with when it arrived in milliseconds after the response headers.
 */
export type Frame = Notes & { atMs: number } & ({ text: string } | { base64: string });

/** An exchange as loaded from a file, with where it came from. */
export interface LoadedExchange {
  exchange: Exchange;
  /** 1-based line number in the tape file. */
  line: number;
}
