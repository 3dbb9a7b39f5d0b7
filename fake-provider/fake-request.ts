/** A request as the fake takes it, from a socket or from `fetch`. */
export interface FakeRequest {
  method: string;
  /** Path and query. */
  path: string;
  headers: Record<string, string>;
  /** The body as text. */
  body: string;
  /** The exact body bytes, when the transport has them (a tape keys on bytes). */
  bytes?: Uint8Array;
}
