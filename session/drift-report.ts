import type { Difference } from '../replay/index.js';

/**
 * What `modeltape drift` found: every request of a run that the tape did not hold, each beside
 * its nearest recording with the differences addressed by JSON path. Rendered three ways: the
 * terminal, JSON (`--json`) and a self-contained HTML page (`--html FILE`).
 */
export interface DriftReport {
  /** The tape the run replayed. */
  tape: string;
  /** The command that ran, as given after `--`. */
  command: string[];
  totals: {
    /** Requests that reached the replay. */
    requests: number;
    /** Requests the tape answered. */
    hits: number;
    /** Requests the tape did not hold (drifted), with or without a nearest recording. */
    drifted: number;
  };
  /** Drifted requests grouped by endpoint, most drifted first. */
  endpoints: DriftEndpoint[];
  /** Every drifted request, in the order the run sent them. */
  drifts: DriftItem[];
}

export interface DriftEndpoint {
  /** e.g. `POST /v1/chat/completions (openai)` */
  endpoint: string;
  drifted: number;
  /** The JSON paths that differed most often in this endpoint's drifts, most frequent first. */
  topPaths: Array<{ path: string; count: number }>;
}

/** One side of a drift: a request as sent, or as recorded. */
export interface DriftRequest {
  method: string;
  /** The provider path, e.g. `/v1/messages`. */
  path: string;
  upstream: string;
  query: Array<[string, string]>;
  /** The key headers and content-type. */
  headers: Record<string, string>;
  /** The body: parsed JSON, or text, or a note that it was binary. */
  body: { json: unknown } | { text: string } | { base64: string } | undefined;
}

export interface DriftItem {
  /** 0-based position among the drifts of the run. */
  index: number;
  /** e.g. `POST /v1/chat/completions (openai)` */
  endpoint: string;
  /** `unrecorded`: no exchange has this key; `exhausted`: called more often than recorded. */
  reason: 'unrecorded' | 'exhausted';
  key: string;
  sent: DriftRequest;
  /** The nearest recording (same method, path and upstream, fewest differing leaves), if any. */
  nearest: { line: number | undefined; key: string; request: DriftRequest } | undefined;
  /** The differing leaves, recorded vs sent (at most 50 kept). */
  differences: Difference[];
  /** How many leaves differ in all. */
  totalDifferences: number;
  /** The miss message the SDK would have seen. */
  message: string;
}
