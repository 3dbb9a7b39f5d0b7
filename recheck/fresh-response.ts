import { FrameSplitter, encodeBody, headerValue, redactResponseHeaders, streamFormatOf, type RecordedResponse } from '../recordings/internal.js';

/** An answer as the upstream sent it today: its status, headers and whole body. */
export interface FreshResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

/**
 * The fresh answer in the tape's own form (a stream cut into its frames, a body encoded as a tape
 * holds it, secret headers left out), so the code that reads recorded answers reads it too.
 */
export function recordedResponseOf(fresh: FreshResponse): RecordedResponse {
  const contentType = headerValue(fresh.headers, 'content-type');
  const response: RecordedResponse = { status: fresh.status, headers: redactResponseHeaders(fresh.headers) };
  const format = streamFormatOf(contentType, headerValue(fresh.headers, 'content-length') === undefined);
  if (format !== undefined) {
    const splitter = new FrameSplitter(format);
    splitter.push(fresh.body, 0);
    response.stream = { format, frames: splitter.finish(0) };
    return response;
  }
  const body = encodeBody(fresh.body, contentType, { exact: true });
  if (body !== undefined) response.body = body;
  return response;
}
