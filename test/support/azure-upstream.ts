import { startStandInUpstream, type ReceivedRequest, type StandInReply, type StandInUpstream } from './stand-in-upstream.js';

// Azure OpenAI's answers, written from its REST reference
// (https://learn.microsoft.com/azure/ai-services/openai/reference, api-version 2024-10-21: chat
// completions, content filtering, rate limits), values shortened and ids marked fake. What makes
// them Azure's: `prompt_filter_results` beside the choices, `content_filter_results` on each
// choice, a first stream chunk with no choices that carries only the prompt's annotations, a
// content-filter refusal as a 400 whose `innererror` names the policy, and a 429 with `retry-after-ms`.

const SAFE = { filtered: false, severity: 'safe' };
const CHOICE_FILTERS = {
  hate: SAFE,
  protected_material_code: { filtered: false, detected: false },
  protected_material_text: { filtered: false, detected: false },
  self_harm: SAFE,
  sexual: SAFE,
  violence: SAFE,
};
const PROMPT_FILTERS = [
  { prompt_index: 0, content_filter_results: { hate: SAFE, jailbreak: { filtered: false, detected: false }, self_harm: SAFE, sexual: SAFE, violence: SAFE } },
];

/** A chat completion as Azure answers it (non-streamed). */
export function azureChatCompletion(content: string): Record<string, unknown> {
  return {
    choices: [
      {
        content_filter_results: CHOICE_FILTERS,
        finish_reason: 'stop',
        index: 0,
        logprobs: null,
        message: { annotations: [], content, refusal: null, role: 'assistant' },
      },
    ],
    created: 1764892800,
    id: 'chatcmpl-fake-azure-0',
    model: 'gpt-4o-2024-11-20',
    object: 'chat.completion',
    prompt_filter_results: PROMPT_FILTERS,
    system_fingerprint: 'fp_fake_azure',
    usage: { completion_tokens: 9, prompt_tokens: 12, total_tokens: 21 },
  };
}

/** A streamed chat completion as Azure sends it: the prompt's annotations first, in a chunk with no choices. */
export function azureChatStream(words: readonly string[]): string[] {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
    choices,
    created: 1764892800,
    id: 'chatcmpl-fake-azure-1',
    model: 'gpt-4o-2024-11-20',
    object: 'chat.completion.chunk',
    system_fingerprint: 'fp_fake_azure',
    ...extra,
  });
  const events: unknown[] = [
    { choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: PROMPT_FILTERS },
    chunk([{ content_filter_results: {}, delta: { content: '', refusal: null, role: 'assistant' }, finish_reason: null, index: 0, logprobs: null }]),
    ...words.map((word) => chunk([{ content_filter_results: CHOICE_FILTERS, delta: { content: word }, finish_reason: null, index: 0, logprobs: null }])),
    chunk([{ content_filter_results: {}, delta: {}, finish_reason: 'stop', index: 0, logprobs: null }]),
    chunk([], { usage: { completion_tokens: words.length, prompt_tokens: 11, total_tokens: 11 + words.length } }),
  ];
  return [...events.map((event) => `data: ${JSON.stringify(event)}\n\n`), 'data: [DONE]\n\n'];
}

/** Azure's refusal of a prompt its content filter blocks. */
export const AZURE_CONTENT_FILTER_ERROR = {
  error: {
    message:
      "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766",
    type: null,
    param: 'prompt',
    code: 'content_filter',
    status: 400,
    innererror: {
      code: 'ResponsibleAIPolicyViolation',
      content_filter_result: {
        hate: { filtered: true, severity: 'high' },
        jailbreak: { filtered: false, detected: false },
        self_harm: SAFE,
        sexual: SAFE,
        violence: SAFE,
      },
    },
  },
};

/** Azure's rate limit: a 429 that says when to retry, in seconds and (its own header) milliseconds. */
export const AZURE_RATE_LIMIT_ERROR = {
  error: {
    code: '429',
    message:
      'Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-10-21 have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 6 seconds.',
  },
};

/** What the stand-in asserts of every request: Azure's own path and an api-version (and a credential, see below). */
export const AZURE_CHAT_PATH = /^\/openai\/deployments\/([^/?]+)\/chat\/completions\?api-version=2024-10-21$/;

/**
 * A loopback stand-in for one Azure OpenAI resource, on port 0. It answers `Blocked …` with the
 * content-filter 400, `Busy …` with the 429, a `stream: true` request with the stream, and
 * anything else with a completion that names the deployment it was sent to. A request that is not
 * Azure's chat route or carries neither an `api-key` nor an Entra ID bearer token gets a 404, so a
 * test sees it.
 */
export function startAzureStandIn(): Promise<StandInUpstream> {
  return startStandInUpstream((request: ReceivedRequest): StandInReply => {
    const route = AZURE_CHAT_PATH.exec(request.url);
    const credential = typeof request.headers['api-key'] === 'string' || request.headers.authorization?.startsWith('Bearer ') === true;
    if (route === null || !credential || request.method !== 'POST') {
      return {
        status: 404,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ error: { code: '404', message: `stand-in: not Azure's chat route: ${request.method} ${request.url}` } }),
      };
    }
    const body = JSON.parse(request.body) as { stream?: boolean; messages: Array<{ content: string }> };
    const prompt = body.messages.at(-1)!.content;
    const json = { 'content-type': 'application/json', 'apim-request-id': 'fake-apim-request-0', 'x-ms-region': 'Sweden Central' };
    if (prompt.startsWith('Blocked')) return { status: 400, headers: json, body: JSON.stringify(AZURE_CONTENT_FILTER_ERROR) };
    if (prompt.startsWith('Busy'))
      return { status: 429, headers: { ...json, 'retry-after': '6', 'retry-after-ms': '6000' }, body: JSON.stringify(AZURE_RATE_LIMIT_ERROR) };
    if (body.stream === true) return { headers: { 'content-type': 'text/event-stream; charset=utf-8' }, frames: azureChatStream(['One', ', two', ', three.']) };
    return { headers: json, body: JSON.stringify(azureChatCompletion(`Hello from deployment ${decodeURIComponent(route[1]!)}: ${prompt}`)) };
  });
}
