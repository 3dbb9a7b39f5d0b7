import { createHash } from 'node:crypto';
import { errorResponse } from './provider-errors.js';
import type { RenderContext } from './surface.js';
import { countTokens } from './usage.js';
import { jsonResponse, type WireResponse } from './wire-response.js';

/**
 * OpenAI embeddings, `POST /v1/embeddings`: a deterministic unit vector per input, derived from
 * the input's sha256, as floats or (what the `openai` package asks for by default) base64 of
 * little-endian float32s.
 */
export function embeddingsResponse(body: Record<string, unknown>, dimensionsDefault: number, context: RenderContext): WireResponse {
  const refuse = (message: string, param: string | null, code: string | null = null): WireResponse =>
    errorResponse('openai', { status: 400, type: 'invalid_request_error', message, param, code }, context);
  if (typeof body.model !== 'string' || body.model === '') return refuse('you must provide a model parameter', null);
  if (body.input === undefined) return refuse("Missing required parameter: 'input'.", 'input', 'missing_required_parameter');
  const inputs = normalizeInput(body.input);
  if (inputs === undefined || inputs.length === 0 || inputs.some((input) => input === '')) {
    return refuse("'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.", null);
  }
  if (inputs.length > 2048)
    return refuse(
      `Invalid 'input': array too long. Expected an array with maximum length 2048, but got an array with length ${inputs.length} instead.`,
      'input',
      'array_above_max_length',
    );
  const format = body.encoding_format ?? 'float';
  if (format !== 'float' && format !== 'base64')
    return refuse(`Invalid value: '${String(format)}'. Supported values are: 'float' and 'base64'.`, 'encoding_format', 'invalid_value');
  const dimensions = typeof body.dimensions === 'number' ? body.dimensions : dimensionsDefault;
  if (!Number.isInteger(dimensions) || dimensions < 1)
    return refuse(
      `Invalid 'dimensions': integer below minimum value. Expected a value >= 1, but got ${String(body.dimensions)} instead.`,
      'dimensions',
      'integer_below_min_value',
    );
  let tokens = 0;
  const data = inputs.map((input, index) => {
    tokens += countTokens(input);
    const vector = embed(input, dimensions);
    return {
      object: 'embedding',
      index,
      embedding: format === 'base64' ? Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64') : [...vector],
    };
  });
  return jsonResponse(200, { object: 'list', data, model: `fake-${body.model}`, usage: { prompt_tokens: tokens, total_tokens: tokens } }, context.headers);
}

/** A unit vector from the text's hash: the same text always embeds the same. */
export function embed(text: string, dimensions: number): Float32Array {
  const vector = new Float32Array(dimensions);
  let block = Buffer.alloc(0);
  for (let index = 0, counter = 0; index < dimensions; index++) {
    if (index % 32 === 0) block = createHash('sha256').update(`${counter++}\u0000${text}`).digest();
    vector[index] = block[index % 32]! / 127.5 - 1;
  }
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm) || 1;
  for (let index = 0; index < dimensions; index++) vector[index] = vector[index]! / norm;
  return vector;
}

// Strings, or token arrays (as numbers), the four forms the API takes.
function normalizeInput(input: unknown): string[] | undefined {
  if (typeof input === 'string') return [input];
  if (!Array.isArray(input)) return undefined;
  if (input.every((item) => typeof item === 'number')) return [input.join(' ')];
  if (input.every((item) => typeof item === 'string')) return input as string[];
  if (input.every((item) => Array.isArray(item) && item.every((token) => typeof token === 'number')))
    return (input as number[][]).map((tokens) => tokens.join(' '));
  return undefined;
}

/** `GET /v1/models` and `GET /v1/models/{id}`: the models the fake answers as, in OpenAI's shape (Anthropic's list is in anthropic-messages/). */
export function modelsResponse(context: RenderContext, model: string | undefined): WireResponse {
  const describe = (id: string): Record<string, unknown> => ({ id, object: 'model', created: context.created, owned_by: 'modeltape-fake' });
  if (model !== undefined) return jsonResponse(200, describe(model), context.headers);
  return jsonResponse(200, { object: 'list', data: ['fake-gpt-4o', 'fake-gpt-4.1-mini', 'fake-text-embedding-3-small'].map(describe) }, context.headers);
}
