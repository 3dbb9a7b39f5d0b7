// Writing a changed JSON value back in the layout its recorded bytes had: a response body (with
// its sha256 set to the new bytes), a stream frame's data, a tool call's arguments string.
import { isRecord, parseJsonPath } from '../../core/internal.js';
import { jsonLayout, keyOrderFits, literalFits, renderJson, sha256Hex, type Body, type JsonLayout, type RecordedResponse } from '../../recordings/internal.js';

/** A response's JSON answer, parsed, and how to write a changed copy back as a body. */
export interface JsonAnswer {
  json: unknown;
  /** The body for `json`: the recorded layout kept (what no longer fits it dropped), `sha256` of exactly the bytes it gives. */
  write(json: unknown): Body;
}

/**
 * The JSON answer of a plain response: a `json` body, or a `text` body that parses as JSON (bytes
 * no layout reproduces, written back compact). Undefined for a stream, a base64 body, no body.
 */
export function jsonAnswerOf(response: RecordedResponse): JsonAnswer | undefined {
  const body = response.body;
  if (body === undefined) return undefined;
  if ('json' in body) {
    const recorded = body.layout;
    return {
      json: body.json,
      write(json) {
        const layout = fittedLayout(recorded, json);
        const text = renderJson(json, layout);
        return layout === undefined ? { json, sha256: sha256Hex(text) } : { json, layout, sha256: sha256Hex(text) };
      },
    };
  }
  if ('text' in body) {
    let json: unknown;
    try {
      json = JSON.parse(body.text);
    } catch {
      return undefined;
    }
    return { json, write: (next) => ({ text: JSON.stringify(next) }) };
  }
  return undefined;
}

/** `value` written as JSON in the layout `like` (JSON text) was written in; compact when no layout gives `like` back. */
export function renderLike(like: string, value: unknown): string {
  let layout: JsonLayout | undefined;
  try {
    layout = jsonLayout(like, JSON.parse(like));
  } catch {
    layout = undefined;
  }
  return renderJson(value, fittedLayout(layout, value));
}

/** A deep copy of a JSON value, to change without touching the recording. */
export function copyJson<T>(value: T): T {
  return structuredClone(value);
}

/** The response headers to keep with a changed body: without a recorded `content-length`, which the new bytes would contradict. */
export function keptHeaders(headers: RecordedResponse['headers']): RecordedResponse['headers'] {
  const kept: RecordedResponse['headers'] = {};
  for (const [name, value] of Object.entries(headers)) if (name.toLowerCase() !== 'content-length') kept[name] = value;
  return kept;
}

/** A response like `response` with another body. */
export function withBody(response: RecordedResponse, body: Body): RecordedResponse {
  const { stream: _stream, body: _body, ...rest } = response;
  return { ...rest, headers: keptHeaders(response.headers), body };
}

// The layout without the literals and key orders that no longer fit the changed value (the
// renderer would skip them anyway; a tape keeps only what it uses).
function fittedLayout(layout: JsonLayout | undefined, value: unknown): JsonLayout | undefined {
  if (layout === undefined) return undefined;
  const fitted: JsonLayout = { ...layout };
  if (layout.literals !== undefined) {
    const literals = Object.fromEntries(Object.entries(layout.literals).filter(([path, literal]) => literalFits(literal, valueAt(value, path))));
    if (Object.keys(literals).length > 0) fitted.literals = literals;
    else delete fitted.literals;
  }
  if (layout.keyOrder !== undefined) {
    const keyOrder = Object.fromEntries(
      Object.entries(layout.keyOrder).filter(([path, order]) => {
        const object = valueAt(value, path);
        return isRecord(object) && keyOrderFits(order, object);
      }),
    );
    if (Object.keys(keyOrder).length > 0) fitted.keyOrder = keyOrder;
    else delete fitted.keyOrder;
  }
  return Object.keys(fitted).length === 0 ? undefined : fitted;
}

function valueAt(value: unknown, path: string): unknown {
  let current = value;
  for (const segment of parseJsonPath(path)) {
    if ('property' in segment) current = isRecord(current) && Object.hasOwn(current, segment.property) ? current[segment.property] : undefined;
    else if ('index' in segment) current = Array.isArray(current) ? current[segment.index] : undefined;
    else return undefined;
    if (current === undefined) return undefined;
  }
  return current;
}
