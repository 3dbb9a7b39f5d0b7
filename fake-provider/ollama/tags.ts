import { errorResponse } from '../provider-errors.js';
import type { RenderContext } from '../surface.js';
import { jsonResponse, type WireResponse } from '../wire-response.js';
import { modelDigest, type OllamaLocalModel, type OllamaLocalModels } from './local-models.js';

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

/**
 * `GET /v1/models` on an Ollama server (`/ollama/v1/models` here): the local models in OpenAI's
 * list shape, as Ollama's OpenAI-compatible layer lists them; one model by `/v1/models/{model}`,
 * or OpenAI's 404 for a model the fake does not hold.
 */
export function ollamaOpenAiModelsResponse(models: OllamaLocalModels, context: RenderContext, named: string | undefined): WireResponse {
  const describe = (name: string): Record<string, unknown> => ({ id: name, object: 'model', created: context.created, owned_by: 'modeltape-fake' });
  if (named === undefined) return jsonResponse(200, { object: 'list', data: models.list().map((model) => describe(model.name)) }, context.headers);
  const model = models.find(named);
  if (model === undefined)
    return errorResponse('openai', { status: 404, type: 'invalid_request_error', code: 'model_not_found', message: `model "${named}" not found` }, context);
  return jsonResponse(200, describe(model.name), context.headers);
}
