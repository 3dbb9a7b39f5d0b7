import type { RenderContext } from '../surface.js';
import { jsonResponse, type WireResponse } from '../wire-response.js';
import { modelDigest, type OllamaLocalModel } from './local-models.js';

/** A model as `/api/tags` (and `/api/ps`) lists it, `modified_at` from the fake's clock. */
export function listedModel(model: OllamaLocalModel, context: RenderContext): Record<string, unknown> {
  return {
    name: model.name,
    model: model.name,
    modified_at: new Date(context.created * 1000).toISOString(),
    size: model.size,
    digest: modelDigest(model.name),
    details: modelDetails(model),
  };
}

/** The `details` Ollama gives a model. */
export function modelDetails(model: OllamaLocalModel): Record<string, unknown> {
  return {
    parent_model: '',
    format: 'gguf',
    family: model.family,
    families: [model.family],
    parameter_size: model.parameterSize,
    quantization_level: 'Q4_K_M',
  };
}

/** `GET /api/tags`: the local models, in Ollama's shape. */
export function ollamaTagsResponse(models: readonly OllamaLocalModel[], context: RenderContext): WireResponse {
  return jsonResponse(200, { models: models.map((model) => listedModel(model, context)) }, context.headers);
}
