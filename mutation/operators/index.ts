// Every mutation one recorded exchange admits: its wire API found from the request (the upstream's
// provider settling shared paths), the answer read by that API's editor, the shared operators run.
import { guessProvider, readTurn, routeOf, withoutProviderPrefix, type TurnApi } from '../../providers/internal.js';
import type { Exchange, RecordedResponse } from '../../recordings/internal.js';
import type { Mutation } from '../mutation.js';
import { anthropicBodyEditor, anthropicStreamEditor } from './anthropic-messages.js';
import { mutationsOfAnswer, type AnswerEditor } from './answer-editor.js';
import { converseBodyEditor, converseStreamEditor } from './bedrock-converse.js';
import { invokeBodyEditor, invokeStreamEditor } from './bedrock-invoke.js';
import { geminiBodyEditor, geminiStreamEditor } from './gemini.js';
import { jsonAnswerOf } from './json-text.js';
import { azureContentFilterMutations } from './azure-openai.js';
import { ollamaBodyEditor, ollamaStreamEditor } from './ollama.js';
import { chatBodyEditor, chatStreamEditor } from './openai-chat.js';
import { responsesBodyEditor, responsesStreamEditor } from './openai-responses.js';
import { eventStreamMessagesOf, streamEventsOf } from './stream-frames.js';
import { mutationProblems, type MutatedApi } from './check-mutation.js';

/**
 * Every mutation `exchange` admits, in a fixed order (the order of MUTATION_OPERATORS, then each
 * operator's variants as the answer holds them): the same exchange gives the same list, byte for
 * byte. Empty for an exchange that is not a successful (2xx) model turn of a known wire API:
 * embeddings, model lists, errors, unknown paths, bodies no editor reads.
 */
export function mutationsOf(exchange: Exchange): Mutation[] {
  const { request, response } = exchange;
  if (response.status < 200 || response.status > 299) return [];
  const api = turnApiOf(exchange);
  if (api === undefined) return [];
  const editor = editorOf(api, response);
  if (editor === undefined) return [];
  const body = request.body !== undefined && 'json' in request.body ? request.body.json : undefined;
  const provider = guessProvider(exchange.upstream);
  const turn = readTurn(request.path, body, request.method, provider);
  if (provider !== 'azure') return mutationsOfAnswer(editor, turn, response);
  // Azure OpenAI: OpenAI's answers, its own failures (its 429), and its content filter.
  return [...mutationsOfAnswer({ ...editor, provider: 'azure' }, turn, response), ...azureContentFilterMutations(api, response)];
}

/**
 * What is wrong with a mutation of `exchange` as a recording (a line the tape reader refuses, a
 * body that does not hash to its sha256, a stream its API's grammar refuses where the operator
 * keeps the grammar); empty when nothing is. A mutant with a problem is an operator's bug: mutate
 * skips it rather than count what a broken recording did.
 */
export function mutantProblems(exchange: Exchange, mutation: Mutation): string[] {
  const api = turnApiOf(exchange);
  return api === undefined ? [`${exchange.request.method} ${exchange.request.path} is not a model turn`] : mutationProblems(exchange, mutation, api);
}

function turnApiOf(exchange: Exchange): MutatedApi | undefined {
  const route = routeOf(exchange.request.method, withoutProviderPrefix(exchange.request.path).path, guessProvider(exchange.upstream));
  return route?.api as TurnApi | undefined;
}

function editorOf(api: MutatedApi, response: RecordedResponse): AnswerEditor | undefined {
  if (response.stream?.format === 'eventstream') {
    // Bedrock's streams: AWS event stream messages, read from their `event` frames.
    const events = eventStreamMessagesOf(response);
    if (events === undefined || events.length === 0) return undefined;
    if (api === 'bedrock-converse') return converseStreamEditor(response, events, 'message');
    if (api === 'bedrock-invoke') return invokeStreamEditor(response, events);
    return undefined;
  }
  if (response.stream !== undefined) {
    const events = streamEventsOf(response);
    if (events === undefined || events.length === 0) return undefined;
    switch (api) {
      case 'openai-chat':
        return chatStreamEditor(response, events);
      case 'openai-responses':
        return responsesStreamEditor(response, events);
      case 'anthropic-messages':
        return anthropicStreamEditor(response, events);
      case 'gemini-generate':
        return geminiStreamEditor(response, events);
      case 'ollama-chat':
      case 'ollama-generate':
        return ollamaStreamEditor(response, events, api);
      default:
        return undefined;
    }
  }
  const answer = jsonAnswerOf(response);
  if (answer === undefined) return undefined;
  switch (api) {
    case 'openai-chat':
      return chatBodyEditor(response, answer);
    case 'openai-responses':
      return responsesBodyEditor(response, answer);
    case 'anthropic-messages':
      return anthropicBodyEditor(response, answer);
    case 'gemini-generate':
      return geminiBodyEditor(response, answer);
    case 'ollama-chat':
    case 'ollama-generate':
      return ollamaBodyEditor(response, answer, api);
    case 'bedrock-converse':
      return converseBodyEditor(response, answer);
    case 'bedrock-invoke':
      return invokeBodyEditor(response, answer);
    default:
      return undefined;
  }
}
