// Azure OpenAI's routes in the battery: OpenAI's Chat Completions, Responses and embeddings at a
// resource's deployment routes (`/openai/deployments/{d}/…?api-version=…`, `/openai/responses?api-version=…`)
// and its v1 routes (`/openai/v1/…`), each route kind a family of every case; and on the v1 routes
// the model list and the Responses API's stored state (stored responses, conversations). The
// bodies are OpenAI's, validated against OpenAI's published spec; what Azure adds is checked by
// hand against the shapes of its captured samples (test/fixtures/azure/README.md names each): the
// content-filter annotations (`prompt_filter_results`, each choice's `content_filter_results`, a
// Responses answer's `content_filters`), the prompt-annotation chunk that opens a chat stream (no
// chat.completion.chunk, so outside the spec), and the resource's own errors (`{"error":{code,message}}`,
// and the content filter's 400 with its `innererror`). The clients: AzureOpenAI on the deployment
// routes, an OpenAI client on the v1 routes (each must send exactly the route the surface was
// asked), and `ai` with @ai-sdk/azure.
import { createAzure } from '@ai-sdk/azure';
import OpenAI, { AzureOpenAI } from 'openai';
import { expect } from 'vitest';
import { failures } from 'modeltape/fake-provider';
import { checkChatStreamGrammar } from '../../../providers/internal.js';
import {
  expectClientReading,
  replaying,
  routeText,
  settle,
  statefulEntry,
  turnCases,
  vercelReading,
  vercelReads,
  type Shape,
  type StatefulStep,
  type WireAnswer,
  type WireApiUnderTest,
  type WireCase,
  type WireRequest,
} from '../wire-conformance.js';
import {
  chat,
  conversations,
  CONVERSATION_STEPS,
  embeddings,
  models,
  OPENAI_ERRORS,
  openAiErrorShape,
  responses,
  responsesStored,
  STORED_STEPS,
} from './openai.js';

const RESOURCE = 'modeltape-fake-resource';
const ENDPOINT = `https://${RESOURCE}.openai.azure.com`;
const DEPLOYMENT = 'gpt-4o-dev';
const EMBEDDING_DEPLOYMENT = 'embedding-dev';
// The GA api-version of the deployment routes, and the preview one Azure's Responses route takes.
const API_VERSION = '2024-10-21';
const RESPONSES_API_VERSION = '2025-04-01-preview';

// --- Azure's additions, checked by hand ----------------------------------------------------------

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

// The categories a resource grades by severity (`{filtered, severity}`) and those it only detects
// (`{filtered, detected}`, protected code with its `citation`), as chat-completion-annotations.json,
// responses-text.json and error-400-content-filter.json send them.
const GRADED = ['hate', 'self_harm', 'sexual', 'violence'];
const DETECTED = ['jailbreak', 'profanity', 'protected_material_text', 'protected_material_code', 'indirect_attack'];
const SEVERITIES = ['safe', 'low', 'medium', 'high'];

/** What is wrong with a `content_filter_results` object: every graded category there, each result in its shape. */
export function filterResultsShape(results: unknown, where: string, options: { filtered?: boolean } = {}): string[] {
  if (!isRecord(results)) return [`${where}: expected the categories' results, found ${JSON.stringify(results)}`];
  const problems: string[] = [];
  for (const category of GRADED) if (!(category in results)) problems.push(`${where}.${category}: missing (every graded category is reported)`);
  let filtered = 0;
  for (const [category, result] of Object.entries(results)) {
    const at = `${where}.${category}`;
    if (!isRecord(result) || typeof result.filtered !== 'boolean') {
      problems.push(`${at}: expected {filtered, …}, found ${JSON.stringify(result)}`);
      continue;
    }
    if (result.filtered) filtered++;
    if (GRADED.includes(category)) {
      if (!SEVERITIES.includes(result.severity as string)) problems.push(`${at}.severity: expected one of ${SEVERITIES.join(', ')}`);
      if (result.filtered && result.severity === 'safe') problems.push(`${at}: filtered at severity "safe"`);
      const others = Object.keys(result).filter((key) => !['filtered', 'severity'].includes(key));
      if (others.length > 0) problems.push(`${at}: unexpected ${others.join(', ')}`);
    } else if (DETECTED.includes(category)) {
      if (typeof result.detected !== 'boolean') problems.push(`${at}.detected: expected a boolean`);
      if (result.filtered && result.detected !== true) problems.push(`${at}: filtered but not detected`);
      const others = Object.keys(result).filter((key) => !['filtered', 'detected', 'citation'].includes(key));
      if (others.length > 0) problems.push(`${at}: unexpected ${others.join(', ')}`);
    } else problems.push(`${at}: not a category Azure's content filter reports`);
  }
  if (options.filtered === true && filtered === 0) problems.push(`${where}: a filtered answer names no category that filtered it`);
  if (options.filtered === false && filtered > 0) problems.push(`${where}: an answer that was not filtered has a filtered category`);
  return problems;
}

/** `prompt_filter_results`: the prompt's entry, `{prompt_index: 0, content_filter_results}`. */
function promptFilterShape(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || value.length !== 1) return [`${where}: expected the prompt's one entry, found ${JSON.stringify(value)?.slice(0, 120)}`];
  const [entry] = value as unknown[];
  if (!isRecord(entry) || entry.prompt_index !== 0) return [`${where}[0].prompt_index: expected 0`];
  return filterResultsShape(entry.content_filter_results, `${where}[0].content_filter_results`, { filtered: false });
}

/** What is wrong with a chat completion's or chunk's annotations; undefined for a chunk with no choices and no prompt results (the usage chunk). */
export function chatAnnotations(value: unknown, kind: 'body' | 'event'): string[] | undefined {
  if (!isRecord(value)) return [`expected an object, found ${JSON.stringify(value)?.slice(0, 120)}`];
  const choices = Array.isArray(value.choices) ? (value.choices as unknown[]) : [];
  if (kind === 'event' && choices.length === 0)
    return 'prompt_filter_results' in value ? promptFilterShape(value.prompt_filter_results, '.prompt_filter_results') : undefined;
  const problems = kind === 'body' ? promptFilterShape(value.prompt_filter_results, '.prompt_filter_results') : [];
  if (kind === 'event' && 'prompt_filter_results' in value) problems.push(".prompt_filter_results: only the stream's first chunk carries the prompt's");
  for (const [index, choice] of choices.entries()) {
    const where = `.choices[${index}].content_filter_results`;
    if (!isRecord(choice) || !('content_filter_results' in choice)) {
      problems.push(`${where}: missing`);
      continue;
    }
    const filtered = choice.finish_reason === 'content_filter';
    const delta = isRecord(choice.delta) ? choice.delta : undefined;
    // Text is always graded; the role chunk and a plain finish carry empty results, and a tool
    // call's chunks may carry either (the stream's text so far graded, or nothing to grade).
    const text = kind === 'body' || filtered || (delta !== undefined && typeof delta.content === 'string' && delta.content !== '');
    if (!text && isRecord(choice.content_filter_results) && Object.keys(choice.content_filter_results).length === 0) continue;
    if (!text && !(delta !== undefined && Array.isArray(delta.tool_calls))) {
      problems.push(`${where}: expected {} on a chunk with nothing to filter, found ${JSON.stringify(choice.content_filter_results)}`);
      continue;
    }
    problems.push(...filterResultsShape(choice.content_filter_results, where, { filtered }));
  }
  return problems;
}

/** A Responses answer's `content_filters`: the prompt's entry and the completion's (responses-text.json); null while the response is in progress. */
export function responsesAnnotations(value: unknown, kind: 'body' | 'event'): string[] | undefined {
  const response = kind === 'body' ? value : isRecord(value) ? value.response : undefined;
  if (!isRecord(response)) return undefined;
  if (!('content_filters' in response)) return ['.content_filters: missing'];
  const filters = response.content_filters;
  if (response.status === 'in_progress' || response.status === 'queued')
    return filters === null ? [] : [`.content_filters: expected null while the response is ${String(response.status)}`];
  if (!Array.isArray(filters) || filters.length !== 2)
    return [`.content_filters: expected the prompt's and the completion's, found ${JSON.stringify(filters)?.slice(0, 120)}`];
  const blocked = isRecord(response.incomplete_details) && response.incomplete_details.reason === 'content_filter';
  const problems: string[] = [];
  for (const [index, source] of ['prompt', 'completion'].entries()) {
    const entry = filters[index] as unknown;
    const where = `.content_filters[${index}]`;
    if (!isRecord(entry)) {
      problems.push(`${where}: expected an object`);
      continue;
    }
    const keys = Object.keys(entry).sort();
    const expected = ['blocked', 'content_filter_offsets', 'content_filter_raw', 'content_filter_results', 'source_type'];
    if (JSON.stringify(keys) !== JSON.stringify(expected)) problems.push(`${where}: expected the keys ${expected.join(', ')}, found ${keys.join(', ')}`);
    if (entry.source_type !== source) problems.push(`${where}.source_type: expected "${source}"`);
    const isBlocked = source === 'completion' && blocked;
    if (entry.blocked !== isBlocked) problems.push(`${where}.blocked: expected ${isBlocked}`);
    const offsets = entry.content_filter_offsets;
    if (!isRecord(offsets) || !['start_offset', 'end_offset', 'check_offset'].every((name) => Number.isInteger(offsets[name])))
      problems.push(`${where}.content_filter_offsets: expected integer start_offset, end_offset and check_offset`);
    problems.push(...filterResultsShape(entry.content_filter_results, `${where}.content_filter_results`, { filtered: isBlocked }));
  }
  return problems;
}

/**
 * What Azure sends that OpenAI's spec does not type, and what is wrong with it: the resource's own
 * errors (`{"error":{"code":"429","message":…}}`, error-429.json), the content filter's 400
 * (error-400-content-filter.json: `type` null, `status`, `innererror`), and a chat stream's first
 * chunk (the prompt's annotations, `object` empty). Undefined for what the spec types.
 */
export function azureOffSpec(value: unknown, kind: 'body' | 'event' | 'error'): string[] | undefined {
  if (kind === 'body' || !isRecord(value)) return undefined;
  if (kind === 'event') {
    if (!('prompt_filter_results' in value)) return undefined;
    const problems = promptFilterShape(value.prompt_filter_results, '.prompt_filter_results');
    const rest = { ...value, prompt_filter_results: undefined };
    if (JSON.stringify(rest) !== JSON.stringify({ choices: [], created: 0, id: '', model: '', object: '' }))
      problems.push(`the prompt-annotation chunk: expected no choices and an empty id, model and object, found ${JSON.stringify(rest)}`);
    return problems;
  }
  const error = value.error;
  if (!isRecord(error)) return undefined;
  if ('innererror' in error) {
    const problems: string[] = [];
    const keys = Object.keys(error).sort().join(', ');
    if (keys !== 'code, innererror, message, param, status, type')
      problems.push(`.error: expected code, innererror, message, param, status, type, found ${keys}`);
    if (error.type !== null) problems.push('.error.type: expected null');
    if (error.code !== 'content_filter') problems.push('.error.code: expected "content_filter"');
    if (error.param !== 'prompt') problems.push('.error.param: expected "prompt"');
    if (error.status !== 400) problems.push('.error.status: expected 400');
    if (typeof error.message !== 'string' || error.message === '') problems.push('.error.message: expected a non-empty string');
    const inner = error.innererror;
    if (!isRecord(inner) || inner.code !== 'ResponsibleAIPolicyViolation') problems.push('.error.innererror.code: expected "ResponsibleAIPolicyViolation"');
    else problems.push(...filterResultsShape(inner.content_filter_result, '.error.innererror.content_filter_result', { filtered: true }));
    return problems;
  }
  if ('type' in error || 'param' in error) return undefined;
  // A resource's own error: the status as the code, and a message.
  const problems: string[] = [];
  if (typeof error.code !== 'string' || !/^[1-5]\d\d$/.test(error.code)) problems.push('.error.code: expected the status as a string, such as "429"');
  if (typeof error.message !== 'string' || error.message === '') problems.push('.error.message: expected a non-empty string');
  const others = Object.keys(error).filter((key) => !['code', 'message'].includes(key));
  if (others.length > 0) problems.push(`.error: unexpected ${others.join(', ')}`);
  return problems;
}

/** An Azure error body: OpenAI's shape, or one of Azure's own ({@link azureOffSpec}). */
function azureErrorShape(body: unknown): string[] {
  return azureOffSpec(body, 'error') ?? openAiErrorShape(body);
}

// --- the families: each route kind with every case ------------------------------------------------

type Family = 'deployment' | 'v1';

function familyOf(shape: Shape): Family {
  return shape.tag.startsWith('v1:') ? 'v1' : 'deployment';
}

/**
 * The turn cases and Azure's own (a filtered answer, a prompt the filter blocks, plain and
 * streamed) once per family, each tag prefixed with it. `opening` is how many events Azure puts
 * before the API's own (the chat stream's prompt annotations), which a cut stream has too.
 */
function azureCases(family: Family, opening: number): WireCase[] {
  const azure: WireCase[] = [false, true].flatMap((stream) => {
    const mode = stream ? 'streamed' : 'plain';
    return [
      {
        name: `${mode}: an answer the content filter cut`,
        shape: { stream, tag: `filtered-${mode}` },
        script: (fake) => void fake.willSay('Here is what I can say', { finish: 'content-filter' }),
        outcome: stream ? 'stream' : 'answer',
      },
      {
        name: `${mode}: a prompt the content filter blocks`,
        shape: { stream, tag: `blocked-${mode}` },
        script: (fake) => void fake.willFail(failures.contentFilter({ category: 'self_harm', severity: 'medium' })),
        outcome: 'http-error',
        status: 400,
      },
    ] satisfies WireCase[];
  });
  return [...turnCases(503), ...azure].map((testCase) => ({
    ...testCase,
    name: `${family}: ${testCase.name}`,
    shape: { ...testCase.shape, tag: `${family}:${testCase.shape.tag}` },
    ...(testCase.eventsBeforeCut === undefined ? {} : { eventsBeforeCut: testCase.eventsBeforeCut + opening }),
  }));
}

/** The request OpenAI's entry makes for the case, at Azure's route for its family. */
function atAzureRoute(entry: WireApiUnderTest, shape: Shape, paths: Record<Family, string>): WireRequest {
  return { ...entry.request(shape, new Map()), path: paths[familyOf(shape)] };
}

/** The `openai` client for a family: AzureOpenAI (the deployment routes) or OpenAI on the resource's v1 routes. */
function openAiClientFor(family: Family, fetch: typeof globalThis.fetch, options: { deployment?: string; apiVersion?: string } = {}): OpenAI {
  if (family === 'v1') return new OpenAI({ apiKey: 'fake-key', baseURL: `${ENDPOINT}/openai/v1`, fetch, maxRetries: 0 });
  return new AzureOpenAI({ endpoint: ENDPOINT, apiKey: 'fake-key', apiVersion: options.apiVersion ?? API_VERSION, fetch, maxRetries: 0, ...options });
}

/** The openai client reads the answer; it must have sent exactly the route the surface was asked. */
async function openAiReading(
  answer: WireAnswer,
  request: WireRequest,
  testCase: WireCase,
  call: (fetch: typeof globalThis.fetch) => Promise<unknown>,
): Promise<void> {
  const sent: string[] = [];
  const reading = await settle(() => call(replaying(answer, sent)));
  const [path, query] = request.path.split('?');
  expect(sent, `openai on Azure "${testCase.name}": the client's request`).toEqual([routeText(request.method, path!, new URLSearchParams(query))]);
  expectClientReading('openai on Azure', reading, testCase, OPENAI_ERRORS);
}

function vercelAzure(answer: WireAnswer, family: Family) {
  return createAzure({
    resourceName: RESOURCE,
    apiKey: 'fake-key',
    fetch: replaying(answer),
    ...(family === 'deployment' ? { useDeploymentBasedUrls: true, apiVersion: API_VERSION } : {}),
  });
}

export const azureChat: WireApiUnderTest = {
  api: 'openai-chat',
  upstream: 'azure',
  request: (shape) =>
    atAzureRoute(chat, shape, {
      deployment: `/openai/deployments/${DEPLOYMENT}/chat/completions?api-version=${API_VERSION}`,
      v1: '/openai/v1/chat/completions',
    }),
  cases: [...azureCases('deployment', 1), ...azureCases('v1', 1)],
  spec: chat.spec!,
  // Azure opens every chat stream with the prompt's annotations, then OpenAI's chunks.
  grammar: (events) => {
    const first = events[0] === undefined ? undefined : (JSON.parse(events[0].data) as Record<string, unknown>);
    const opening = first !== undefined && Array.isArray(first.choices) && first.choices.length === 0 && 'prompt_filter_results' in first;
    return [
      ...(events.length === 0 || opening ? [] : ["Azure's chat stream opens with the prompt's annotations, in a chunk of no choices"]),
      ...checkChatStreamGrammar(events),
    ];
  },
  isErrorEvent: (_event, data) => 'error' in data,
  offSpec: azureOffSpec,
  annotations: chatAnnotations,
  errorShape: azureErrorShape,
  async clients(answer, request, testCase) {
    const family = familyOf(testCase.shape);
    const body = request.body as unknown as OpenAI.ChatCompletionCreateParams;
    await openAiReading(answer, request, testCase, (fetch) => openAiClientFor(family, fetch, { deployment: DEPLOYMENT }).chat.completions.create(body));
    if (!vercelReads(testCase)) return 1;
    return 1 + (await vercelReading(vercelAzure(answer, family).chat(DEPLOYMENT), testCase));
  },
};

export const azureResponses: WireApiUnderTest = {
  api: 'openai-responses',
  upstream: 'azure',
  request: (shape) => atAzureRoute(responses, shape, { deployment: `/openai/responses?api-version=${RESPONSES_API_VERSION}`, v1: '/openai/v1/responses' }),
  cases: [...azureCases('deployment', 0), ...azureCases('v1', 0)],
  spec: responses.spec!,
  grammar: responses.grammar!,
  offSpec: azureOffSpec,
  annotations: responsesAnnotations,
  errorShape: azureErrorShape,
  async clients(answer, request, testCase) {
    const family = familyOf(testCase.shape);
    const body = request.body as unknown as OpenAI.Responses.ResponseCreateParams;
    await openAiReading(answer, request, testCase, (fetch) => openAiClientFor(family, fetch, { apiVersion: RESPONSES_API_VERSION }).responses.create(body));
    if (!vercelReads(testCase)) return 1;
    return 1 + (await vercelReading(vercelAzure(answer, family).responses(DEPLOYMENT), testCase));
  },
};

const embeddingCases = (family: Family): WireCase[] =>
  embeddings.cases.map((testCase) => ({
    ...testCase,
    name: `${family}: ${testCase.name}`,
    shape: { ...testCase.shape, tag: `${family}:${testCase.shape.tag}` },
  }));

export const azureEmbeddings: WireApiUnderTest = {
  api: 'openai-embeddings',
  upstream: 'azure',
  // OpenAI's entry picks base64 and the refusal by the tag, which carries the family here.
  request: (shape) => ({
    ...embeddings.request({ ...shape, tag: shape.tag.slice(shape.tag.indexOf(':') + 1) }, new Map()),
    path: familyOf(shape) === 'v1' ? '/openai/v1/embeddings' : `/openai/deployments/${EMBEDDING_DEPLOYMENT}/embeddings?api-version=${API_VERSION}`,
  }),
  cases: [...embeddingCases('deployment'), ...embeddingCases('v1')],
  spec: embeddings.spec!,
  asSpecified: embeddings.asSpecified!,
  offSpec: azureOffSpec,
  errorShape: azureErrorShape,
  async clients(answer, request, testCase) {
    const family = familyOf(testCase.shape);
    const body = request.body as unknown as OpenAI.EmbeddingCreateParams;
    await openAiReading(answer, request, testCase, (fetch) => openAiClientFor(family, fetch, { deployment: EMBEDDING_DEPLOYMENT }).embeddings.create(body));
    return 1;
  },
};

// --- OpenAI's other APIs on the v1 routes: the model list and the Responses API's stored state ----

/** A request of OpenAI's at a resource's v1 route: `/v1/…` is `/openai/v1/…`. */
function atV1Route(request: WireRequest): WireRequest {
  return { ...request, path: `/openai${request.path}` };
}

/**
 * OpenAI's stateful steps at the v1 routes, read by an OpenAI client on the resource's v1 base:
 * each step reads its ids from the path as OpenAI's (`/v1/responses/{id}`), so it is given that.
 */
function v1Steps(steps: readonly StatefulStep<OpenAI>[]): StatefulStep<OpenAI>[] {
  return steps.map((step) => ({
    case: step.case,
    request: (earlier) => atV1Route(step.request(earlier)),
    read: (client, request) => step.read(client, { ...request, path: request.path.replace(/^\/openai(?=\/v1\/)/, '') }),
  }));
}

const v1Client = (fetch: typeof globalThis.fetch) => openAiClientFor('v1', fetch);

// A created response's content_filters are checked by azureResponses; what a resource sends for a
// retrieved one is not in the samples, so the stored state is held to OpenAI's spec and Azure's errors only.
export const azureResponsesStored: WireApiUnderTest = {
  ...responsesStored,
  upstream: 'azure',
  ...statefulEntry(v1Steps(STORED_STEPS), v1Client, { name: 'openai on Azure', errors: OPENAI_ERRORS }),
  offSpec: azureOffSpec,
  errorShape: azureErrorShape,
};

export const azureConversations: WireApiUnderTest = {
  ...conversations,
  upstream: 'azure',
  ...statefulEntry(v1Steps(CONVERSATION_STEPS), v1Client, { name: 'openai on Azure', errors: OPENAI_ERRORS }),
  offSpec: azureOffSpec,
  errorShape: azureErrorShape,
};

export const azureModels: WireApiUnderTest = {
  ...models,
  upstream: 'azure',
  request: (shape, earlier) => atV1Route(models.request(shape, earlier)),
  offSpec: azureOffSpec,
  errorShape: azureErrorShape,
  async clients(answer, request, testCase) {
    await openAiReading(answer, request, testCase, async (fetch) => {
      const page = await v1Client(fetch).models.list();
      expect(page.data.length, 'models listed').toBeGreaterThan(0);
      return page.data;
    });
    return 1;
  },
};
