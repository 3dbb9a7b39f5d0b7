// Azure OpenAI's content filter, the one change an Azure answer admits that OpenAI's does not:
// the completion filtered (`finish_reason: "content_filter"` and the choice's
// `content_filter_results` naming the category that filtered it) or the prompt refused (the
// resource's 400 `content_filter` with its `innererror`). The shapes are providers/azure's, the
// ones the FakeProvider answers with.
import { isRecord } from '../../core/internal.js';
import {
  PROMPT_FILTERED_MESSAGE,
  completionFilterResults,
  errorBody,
  promptFilteredInnerError,
  type AzureFilterHit,
  type TurnApi,
} from '../../providers/internal.js';
import { sha256Hex, type RecordedResponse } from '../../recordings/internal.js';
import type { Mutation } from '../mutation.js';
import { MUTATED_BY } from './failures.js';
import { copyJson, jsonAnswerOf, withBody } from './json-text.js';
import { StreamDraft, streamEventsOf, withFrames } from './stream-frames.js';

/** What the mutants say filtered the answer or the prompt. */
export const MUTANT_FILTER_HIT: AzureFilterHit = { category: 'hate', severity: 'high' };

type Json = Record<string, unknown>;

/**
 * The `content-filtered` mutations of an Azure OpenAI answer: `completion` (Chat Completions only:
 * a plain answer's first choice loses its content and tool calls; a stream keeps what it sent and
 * ends filtered) and `prompt` (any model turn: the whole exchange answered with the 400).
 */
export function azureContentFilterMutations(api: TurnApi, recorded: RecordedResponse): Mutation[] {
  const mutations: Mutation[] = [];
  if (api === 'openai-chat') {
    const completion = recorded.stream === undefined ? filteredCompletion(recorded) : filteredStream(recorded);
    if (completion !== undefined) mutations.push(completion);
  }
  const response = promptFilteredResponse(recorded);
  mutations.push({
    operator: 'content-filtered',
    variant: 'prompt',
    description: `answered 400 content_filter (the prompt filtered for ${MUTANT_FILTER_HIT.category}) in place of the recorded ${recorded.status}`,
    before: `${recorded.status}`,
    after: `400 ${JSON.stringify((response.body as { json: unknown }).json)}`,
    response,
  });
  return mutations;
}

function filteredCompletion(recorded: RecordedResponse): Mutation | undefined {
  const answer = jsonAnswerOf(recorded);
  if (answer === undefined || !isRecord(answer.json) || !Array.isArray(answer.json.choices) || !isRecord(answer.json.choices[0])) return undefined;
  const json = copyJson(answer.json) as Json;
  const choice = (json.choices as Json[])[0]!;
  const message = isRecord(choice.message) ? choice.message : (choice.message = {});
  const before = `finish_reason ${String(choice.finish_reason)}, content ${JSON.stringify(message.content ?? null)}`;
  message.content = null;
  delete message.tool_calls;
  choice.finish_reason = 'content_filter';
  choice.content_filter_results = completionFilterResults(MUTANT_FILTER_HIT);
  return {
    operator: 'content-filtered',
    variant: 'completion',
    description: `the completion filtered for ${MUTANT_FILTER_HIT.category}: finish_reason content_filter, no content`,
    before,
    after: `finish_reason content_filter, content null, content_filter_results.${MUTANT_FILTER_HIT.category} ${JSON.stringify(completionFilterResults(MUTANT_FILTER_HIT)[MUTANT_FILTER_HIT.category])}`,
    response: withBody(recorded, answer.write(json)),
  };
}

function filteredStream(recorded: RecordedResponse): Mutation | undefined {
  const events = streamEventsOf(recorded);
  if (events === undefined) return undefined;
  const finishAt = events.findIndex((event) => {
    const choice = firstChoice(event.json);
    return choice !== undefined && choice.finish_reason !== null && choice.finish_reason !== undefined;
  });
  if (finishAt < 0) return undefined;
  const draft = new StreamDraft(events);
  const choice = firstChoice(draft.json(finishAt))!;
  const before = `finish_reason ${String(choice.finish_reason)}`;
  choice.finish_reason = 'content_filter';
  choice.content_filter_results = completionFilterResults(MUTANT_FILTER_HIT);
  return {
    operator: 'content-filtered',
    variant: 'completion',
    description: `the stream ends filtered for ${MUTANT_FILTER_HIT.category}: finish_reason content_filter`,
    before,
    after: `finish_reason content_filter, content_filter_results.${MUTANT_FILTER_HIT.category} ${JSON.stringify(completionFilterResults(MUTANT_FILTER_HIT)[MUTANT_FILTER_HIT.category])}`,
    response: withFrames(recorded, draft.frames()),
  };
}

/** The recorded response replaced by the resource's 400 for a filtered prompt, the recorded headers kept but the body's own. */
function promptFilteredResponse(recorded: RecordedResponse): RecordedResponse {
  const json = errorBody('azure', {
    status: 400,
    type: 'invalid_request_error',
    param: 'prompt',
    code: 'content_filter',
    message: `${PROMPT_FILTERED_MESSAGE} (${MUTATED_BY})`,
    innererror: promptFilteredInnerError(MUTANT_FILTER_HIT),
  });
  const headers: RecordedResponse['headers'] = {};
  for (const [name, value] of Object.entries(recorded.headers)) if (!BODY_HEADERS.has(name.toLowerCase())) headers[name] = value;
  headers['content-type'] = 'application/json';
  const { body: _body, stream: _stream, ...rest } = recorded;
  return { ...rest, status: 400, headers, body: { json, sha256: sha256Hex(JSON.stringify(json)) } };
}

const BODY_HEADERS = new Set(['content-type', 'content-length', 'content-encoding', 'transfer-encoding']);

function firstChoice(json: unknown): Json | undefined {
  if (!isRecord(json) || !Array.isArray(json.choices)) return undefined;
  const choice = json.choices.find((entry) => isRecord(entry) && (entry.index === 0 || entry.index === undefined));
  return isRecord(choice) ? choice : undefined;
}
