/**
 * A request as a client sent it to the proxy, read whole: what the decision needs, with no
 * socket behind it. node:http's `IncomingMessage` gives one, and so does a fetch `Request`.
 */
export interface ProxyRequest {
  /** Upper case, as sent: `POST`. */
  method: string;
  /** The path and query in the proxy's form: `/<upstream>/<path>?<query>`, e.g. `/openai/v1/chat/completions`. */
  url: string;
  /** Lower-case names, as node:http gives them; a repeated header is an array. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  body: Buffer;
}

/** The part of a request known before its body is read. */
export type ProxyRequestHead = Omit<ProxyRequest, 'body'>;
