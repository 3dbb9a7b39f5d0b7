import { errorResponse } from '../provider-errors.js';
import type { RenderContext } from '../surface.js';
import { jsonResponse, type WireResponse } from '../wire-response.js';
import { modelDigest, type OllamaLocalModel, type OllamaLocalModels } from './local-models.js';
import { ndjsonResponse } from './ndjson.js';
import { listedModel, modelDetails } from './tags.js';

/** The version `/api/version` answers: a real release's number, marked fake. */
export const FAKE_OLLAMA_VERSION = '0.13.0-modeltape-fake';

/**
 * Ollama's model management, as ollama/ollama server/routes.go answers it: `GET /api/version`,
 * `GET /api/ps` (the models a turn loaded), `POST /api/show` (details, capabilities, a fake
 * modelfile), `POST /api/pull`, `/api/push` and `/api/create` (progress as NDJSON ending in
 * `{"status":"success"}`, or that one object with `stream:false`), `POST /api/copy` and
 * `DELETE /api/delete` (200, no body), and `GET /` ("Ollama is running"). Pull, create, copy
 * and delete change what `/api/tags` lists. A model the fake does not hold is the real 404.
 */
export function ollamaModelManagementResponse(method: string, path: string, raw: string, models: OllamaLocalModels, context: RenderContext): WireResponse {
  const verb = method.toUpperCase();
  if (path === '/')
    return { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8', ...context.headers }, body: verb === 'HEAD' ? '' : 'Ollama is running' };
  if (path === '/api/version') return jsonResponse(200, { version: FAKE_OLLAMA_VERSION }, context.headers);
  if (path === '/api/ps') return jsonResponse(200, { models: models.running().map((model) => runningModel(model, context)) }, context.headers);
  const refuse = (status: number, message: string): WireResponse => errorResponse('ollama', { status, type: 'invalid_request_error', message }, context);
  if (raw.trim() === '') return refuse(400, 'missing request body');
  let body: Record<string, unknown>;
  try {
    const parsed = JSON.parse(raw) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return refuse(400, 'json: cannot unmarshal request body into a Go struct');
    body = parsed as Record<string, unknown>;
  } catch {
    return refuse(400, 'invalid character in request body: it is not JSON');
  }
  // Ollama takes `model`, and the older `name` (which the `ollama` client still sends for pull, push and delete).
  const named = typeof body.model === 'string' && body.model !== '' ? body.model : typeof body.name === 'string' ? body.name : '';
  const notFound = (model: string): WireResponse => refuse(404, `model '${model}' not found`);
  const streams = body.stream !== false;
  const done = (steps: Array<Record<string, unknown>>): WireResponse =>
    streams ? ndjsonResponse([...steps, { status: 'success' }], context, undefined) : jsonResponse(200, { status: 'success' }, context.headers);
  const empty: WireResponse = { status: 200, headers: { ...context.headers }, body: '' };

  switch (path) {
    case '/api/show': {
      if (named === '') return refuse(400, 'model is required');
      const model = models.find(named);
      return model === undefined ? notFound(named) : jsonResponse(200, showResponse(model, context), context.headers);
    }
    case '/api/pull': {
      if (named === '') return refuse(400, 'invalid model name');
      const model = models.add(named, models.find(named));
      const digest = modelDigest(model.name);
      return done([
        { status: 'pulling manifest' },
        { status: `pulling ${digest.slice(0, 12)}`, digest: `sha256:${digest}`, total: model.size, completed: model.size },
        { status: 'verifying sha256 digest' },
        { status: 'writing manifest' },
      ]);
    }
    case '/api/push': {
      if (named === '') return refuse(400, 'model is required');
      // An approximation: a real server fails a push of a model it lacks while streaming; the fake answers the 404 at once.
      const model = models.find(named);
      if (model === undefined) return notFound(named);
      const digest = modelDigest(model.name);
      return done([
        { status: 'retrieving manifest' },
        { status: `pushing ${digest.slice(0, 12)}`, digest: `sha256:${digest}`, total: model.size, completed: model.size },
        { status: 'pushing manifest' },
      ]);
    }
    case '/api/create': {
      if (named === '') return refuse(400, 'invalid model name');
      const from = typeof body.from === 'string' && body.from !== '' ? body.from : undefined;
      const base = from === undefined ? undefined : models.find(from);
      if (from !== undefined && base === undefined) return notFound(from);
      const model = models.add(named, base);
      return done([{ status: `using existing layer sha256:${modelDigest(base?.name ?? model.name)}` }, { status: 'writing manifest' }]);
    }
    case '/api/copy': {
      const source = typeof body.source === 'string' ? body.source : '';
      const destination = typeof body.destination === 'string' ? body.destination : '';
      if (source === '') return refuse(400, `source ${JSON.stringify(source)} is invalid`);
      if (destination === '') return refuse(400, `destination ${JSON.stringify(destination)} is invalid`);
      const model = models.find(source);
      // CopyHandler quotes the name with %q, unlike show and delete.
      if (model === undefined) return refuse(404, `model ${JSON.stringify(source)} not found`);
      models.add(destination, model);
      return empty;
    }
    default: {
      // DELETE /api/delete
      if (named === '') return refuse(400, `name ${JSON.stringify(named)} is invalid`);
      return models.remove(named) ? empty : notFound(named);
    }
  }
}

/** `/api/show`: what Ollama tells of a model, each part saying it is fake. */
function showResponse(model: OllamaLocalModel, context: RenderContext): Record<string, unknown> {
  const base = model.name.replace(/^fake-/, '').split(':')[0]!;
  const template = '{{ if .System }}{{ .System }}\n{{ end }}{{ .Prompt }}';
  return {
    modelfile: `# Modelfile generated by "ollama show"\n# A modeltape FakeProvider model: it has no weights, its answers are scripted.\nFROM ${model.name}\nTEMPLATE """${template}"""\nPARAMETER num_ctx 4096\n`,
    parameters: 'num_ctx                        4096',
    template,
    details: modelDetails(model),
    model_info: {
      'general.architecture': model.family,
      'general.basename': base,
      'general.file_type': 15,
      'general.parameter_count': parameterCount(model.parameterSize),
      'general.quantization_version': 2,
      [`${model.family}.context_length`]: 131072,
      [`${model.family}.embedding_length`]: 3072,
    },
    capabilities: model.capabilities,
    modified_at: new Date(context.created * 1000).toISOString(),
  };
}

/** `/api/ps`: a loaded model, kept for Ollama's default five minutes from the fake's clock. */
function runningModel(model: OllamaLocalModel, context: RenderContext): Record<string, unknown> {
  const { modified_at: _modified, ...listed } = listedModel(model, context);
  return { ...listed, expires_at: new Date((context.created + 300) * 1000).toISOString(), size_vram: model.size, context_length: 4096 };
}

// `3.2B` → 3_200_000_000, `137M` → 137_000_000.
function parameterCount(size: string): number {
  const match = /^([\d.]+)([MB])$/.exec(size);
  if (match === null) return 0;
  return Math.round(Number(match[1]) * (match[2] === 'B' ? 1e9 : 1e6));
}
