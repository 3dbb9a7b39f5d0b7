import { jsonResponse, type WireResponse } from '../wire-response.js';
import type { RenderContext } from '../surface.js';

/** The Gemini models the fake lists: each says it is fake. */
const GEMINI_MODELS = [
  { id: 'fake-gemini-2.5-flash', methods: ['generateContent', 'streamGenerateContent', 'countTokens'] },
  { id: 'fake-gemini-2.5-pro', methods: ['generateContent', 'streamGenerateContent', 'countTokens'] },
  { id: 'fake-gemini-embedding-001', methods: ['embedContent', 'batchEmbedContents', 'countTokens'] },
] as const;

/** `GET /v1beta/models` (`{models:[…]}`) and `GET /v1beta/models/{model}` (one model), in Gemini's shape. */
export function geminiModelsResponse(context: RenderContext, model: string | undefined): WireResponse {
  const describe = (id: string, methods: readonly string[]): Record<string, unknown> => ({
    name: `models/${id}`,
    version: '001',
    displayName: `${id} (modeltape fake)`,
    description: 'A model the modeltape FakeProvider answers as.',
    inputTokenLimit: 1048576,
    outputTokenLimit: 65536,
    supportedGenerationMethods: methods,
  });
  if (model !== undefined) {
    const known = GEMINI_MODELS.find((candidate) => candidate.id === model);
    return jsonResponse(200, describe(model, known?.methods ?? GEMINI_MODELS[0].methods), context.headers);
  }
  return jsonResponse(200, { models: GEMINI_MODELS.map((entry) => describe(entry.id, entry.methods)) }, context.headers);
}
