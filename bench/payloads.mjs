// The bytes every target serves, shared by the bare upstream and the load generator.

/** The request autocannon sends (an OpenAI chat request). The SSE payload adds `"stream":true`. */
export function requestBody(payload) {
  const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] };
  if (payload === 'sse') body.stream = true;
  return JSON.stringify(body);
}

export const REQUEST_PATH = '/openai/v1/chat/completions';
export const UPSTREAM_PATH = '/v1/chat/completions';

const CREATED = 1730000000;
const ID = 'chatcmpl-AQ7bench01';
const FINGERPRINT = 'fp_0ba0d124f1';

// Text without anything shaped like a credential (the tape writer refuses those).
const SENTENCE = 'Hello! How can I help you today? I can answer questions, draft text, or explain code. ';

/** A realistic chat.completion object padded (inside the assistant message) to ~1 KB. Compact JSON. */
function jsonPayload(target = 1024) {
  const make = (content) =>
    JSON.stringify({
      id: ID,
      object: 'chat.completion',
      created: CREATED,
      model: 'gpt-4o-mini-2024-07-18',
      choices: [{ index: 0, message: { role: 'assistant', content, refusal: null, annotations: [] }, logprobs: null, finish_reason: 'stop' }],
      usage: {
        prompt_tokens: 8,
        completion_tokens: 180,
        total_tokens: 188,
        prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      },
      service_tier: 'default',
      system_fingerprint: FINGERPRINT,
    });
  let content = '';
  while (Buffer.byteLength(make(content + SENTENCE)) <= target) content += SENTENCE;
  content += 'x'.repeat(Math.max(0, target - Buffer.byteLength(make(content))));
  return Buffer.from(make(content));
}

/** ~10 chat.completion.chunk SSE frames plus `data: [DONE]`, ~2 KB in all. */
function sseFrames() {
  const chunk = (delta, finish = null) =>
    `data: ${JSON.stringify({ id: ID, object: 'chat.completion.chunk', created: CREATED, model: 'gpt-4o-mini', system_fingerprint: FINGERPRINT, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
  const words = ['Hello!', ' How', ' can', ' I', ' help', ' you', ' today', '?'];
  const frames = [chunk({ role: 'assistant', content: '', refusal: null })];
  for (const word of words) frames.push(chunk({ content: word }));
  frames.push(chunk({}, 'stop'));
  frames.push('data: [DONE]\n\n');
  return frames.map((frame) => Buffer.from(frame));
}

export const JSON_RESPONSE = jsonPayload();
export const SSE_FRAMES = sseFrames();
export const SSE_RESPONSE = Buffer.concat(SSE_FRAMES);

/**
 * The exact body each payload's response must carry (autocannon's expectBody). A tape keeps a
 * JSON body parsed, in the key order it arrived in, and replay serves it back compact: the bench
 * upstream sends compact JSON, so replay's bytes are the upstream's bytes.
 */
export function expectedBody(payload) {
  if (payload === 'sse') return SSE_RESPONSE.toString('utf8');
  return JSON_RESPONSE.toString('utf8');
}
