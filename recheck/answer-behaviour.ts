// What a program acts on in one answer, recorded or fresh: its status, its finish, a refusal, its
// text, its tool calls with their arguments, its structured output checked against the request's
// schema, and the model that answered. Read through tape-report/ (which reads each API through
// providers/), so a recorded answer and a fresh one are read by the same code.
import { excerpt, isRecord, parseJson, type Json } from '../core/internal.js';
import { guessProvider, readTurn, routeOf, withoutProviderPrefix } from '../providers/internal.js';
import type { Exchange } from '../recordings/internal.js';
import { compileForeignSchema, createLenientValidator } from '../schema/internal.js';
import { answerContent, answerFacts, type ContentToolCall, type Finish, type TokenCounts } from '../tape-report/internal.js';

/** Structured output: the answer's text parsed as JSON and checked against the schema the request sent. */
export interface StructuredOutput {
  /** The parsed value; undefined when the text is not JSON. */
  value: Json | undefined;
  /** Every way the value fails the schema (`.celsius: must be number`); empty when it is valid. */
  problems: string[];
}

/** What a program acts on in an answer. */
export interface AnswerBehaviour {
  status: number;
  /** The finish in one vocabulary across the APIs (tape-report's), and as the answer wrote it. */
  finish: Finish | undefined;
  rawFinish: string | undefined;
  refused: boolean;
  /** The provider's failure under a 2xx status (a stream that ended in its error event). */
  failed: boolean;
  text: string | null;
  toolCalls: ContentToolCall[];
  /** Present when the request asked for structured output (a response schema). */
  structured: StructuredOutput | undefined;
  /** The model the provider says answered. */
  answeredModel: string | undefined;
  usage: TokenCounts | undefined;
  /** An error answer's message (`The model gpt-4o-0513 does not exist`), cut short. */
  errorMessage: string | undefined;
  /** Why the answer could not be read, when it could not. */
  problem: string | undefined;
}

/** Checks values against the JSON Schemas requests sent, compiling each once. */
export class ResponseSchemas {
  #validator = createLenientValidator();
  #compiled = new Map<string, ReturnType<typeof compileForeignSchema> | Error>();

  /** Every way `value` fails `schema`, as `path: message`; empty when it is valid. */
  problemsOf(schema: unknown, value: unknown): string[] {
    const id = JSON.stringify(schema);
    let validate = this.#compiled.get(id);
    if (validate === undefined) {
      try {
        validate = compileForeignSchema(this.#validator, schema);
      } catch (error) {
        validate = error as Error;
      }
      this.#compiled.set(id, validate);
    }
    if (validate instanceof Error) return [`the request's schema could not be compiled: ${validate.message}`];
    if (validate(value)) return [];
    return (validate.errors ?? []).map((error) => `${jsonPath(error.instancePath)}: ${error.message ?? 'is invalid'}`);
  }
}

// `/items/0/name` as `.items[0].name`.
function jsonPath(pointer: string): string {
  if (pointer === '') return '(the whole value)';
  return pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^\d+$/.test(segment) ? `[${segment}]` : /^[A-Za-z_$][\w$]*$/.test(segment) ? `.${segment}` : `[${JSON.stringify(segment)}]`))
    .join('');
}

/** What a program acts on in the answer of `exchange`. */
export function answerBehaviour(exchange: Exchange, schemas: ResponseSchemas): AnswerBehaviour {
  const facts = answerFacts(exchange);
  const content = answerContent(exchange);
  const { request } = exchange;
  const route = routeOf(request.method, withoutProviderPrefix(request.path).path, guessProvider(exchange.upstream));
  const requestJson = request.body !== undefined && 'json' in request.body ? request.body.json : undefined;
  const turn = route === undefined ? undefined : readTurn(request.path, requestJson, request.method, route.provider);
  const schema = turn?.responseSchema?.schema;
  let structured: StructuredOutput | undefined;
  if (schema !== undefined && facts.status >= 200 && facts.status < 300 && !facts.refused && !facts.failed && content.toolCalls.length === 0) {
    const value = content.text === null ? undefined : (parseJson(content.text) as Json | undefined);
    structured = { value, problems: value === undefined ? ['the text is not JSON'] : schemas.problemsOf(schema, value) };
  }
  return {
    status: facts.status,
    finish: facts.finish,
    rawFinish: facts.rawFinish,
    refused: facts.refused,
    failed: facts.failed,
    text: content.text,
    toolCalls: content.toolCalls,
    structured,
    answeredModel: content.answeredModel,
    usage: facts.usage,
    errorMessage: facts.status >= 200 && facts.status < 300 ? undefined : errorMessageOf(exchange),
    problem: content.problem,
  };
}

// The message of a provider's error body (`{"error":{"message":…}}`, as OpenAI, Anthropic and Gemini send it).
function errorMessageOf(exchange: Exchange): string | undefined {
  const body = exchange.response.body;
  const json = body === undefined ? undefined : 'json' in body ? body.json : 'text' in body ? (parseJson(body.text) ?? body.text) : undefined;
  if (typeof json === 'string') return excerpt(json, 200);
  const error = isRecord(json) ? json.error : undefined;
  const message = isRecord(error) ? error.message : isRecord(json) ? json.message : undefined;
  return typeof message === 'string' ? excerpt(message, 200) : undefined;
}
