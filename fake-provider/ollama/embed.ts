import { embed } from '../openai-embeddings.js';
import { errorResponse } from '../provider-errors.js';
import type { RenderContext } from '../surface.js';
import { countTokens } from '../usage.js';
import { jsonResponse, type WireResponse } from '../wire-response.js';

/**
 * Ollama embeddings: `POST /api/embed` (`input`, a string or strings → `embeddings`, with the
 * durations and `prompt_eval_count`) and the legacy `POST /api/embeddings` (`prompt` →
 * `embedding`). The vectors are the fake's deterministic unit vectors, `dimensions` long.
 */
export function ollamaEmbedResponse(path: string, body: Record<string, unknown>, dimensionsDefault: number, context: RenderContext): WireResponse {
  const refuse = (message: string): WireResponse => errorResponse('ollama', { status: 400, type: 'invalid_request_error', message }, context);
  if (typeof body.model !== 'string' || body.model === '') return refuse('model is required');
  const dimensions = typeof body.dimensions === 'number' && Number.isInteger(body.dimensions) && body.dimensions > 0 ? body.dimensions : dimensionsDefault;
  const model = body.model.startsWith('fake-') ? body.model : `fake-${body.model}`;
  if (path.endsWith('/api/embeddings')) {
    if (body.prompt !== undefined && typeof body.prompt !== 'string')
      return refuse(
        `json: cannot unmarshal ${Array.isArray(body.prompt) ? 'array' : typeof body.prompt} into Go struct field EmbeddingRequest.prompt of type string`,
      );
    // An empty prompt only loads the model (server/routes.go EmbeddingsHandler).
    const prompt = (body.prompt as string | undefined) ?? '';
    return jsonResponse(200, { embedding: prompt === '' ? [] : [...embed(prompt, dimensions)] }, context.headers);
  }
  let inputs: string[];
  if (typeof body.input === 'string') inputs = body.input === '' ? [] : [body.input];
  else if (Array.isArray(body.input) && body.input.every((item) => typeof item === 'string')) inputs = body.input as string[];
  else if (body.input === undefined || body.input === null) inputs = [];
  else return refuse('invalid input type');
  const tokens = inputs.reduce((sum, input) => sum + countTokens(input), 0);
  return jsonResponse(
    200,
    {
      model,
      embeddings: inputs.map((input) => [...embed(input, dimensions)]),
      total_duration: 1_000_000 + tokens * 100_000,
      load_duration: 1_000_000,
      prompt_eval_count: Math.max(1, tokens),
    },
    context.headers,
  );
}
