import { createHash } from 'node:crypto';
import type { RenderContext } from '../surface.js';
import { jsonResponse, type WireResponse } from '../wire-response.js';

/** The models the fake lists as an Ollama server: each says it is fake. */
const FAKE_OLLAMA_MODELS = [
  { name: 'fake-llama3.2:latest', family: 'llama', parameterSize: '3.2B', size: 2_019_393_189 },
  { name: 'fake-nomic-embed-text:latest', family: 'nomic-bert', parameterSize: '137M', size: 274_302_450 },
] as const;

/** `GET /api/tags`: the local models, in Ollama's shape, `modified_at` from the fake's clock. */
export function ollamaTagsResponse(context: RenderContext): WireResponse {
  const modifiedAt = new Date(context.created * 1000).toISOString();
  const models = FAKE_OLLAMA_MODELS.map((model) => ({
    name: model.name,
    model: model.name,
    modified_at: modifiedAt,
    size: model.size,
    digest: createHash('sha256').update(model.name).digest('hex'),
    details: {
      parent_model: '',
      format: 'gguf',
      family: model.family,
      families: [model.family],
      parameter_size: model.parameterSize,
      quantization_level: 'Q4_K_M',
    },
  }));
  return jsonResponse(200, { models }, context.headers);
}
