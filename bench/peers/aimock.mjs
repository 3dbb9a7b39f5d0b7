// CopilotKit's aimock (LLMock) serving the bench's OpenAI chat answer from one fixture, in its own
// process: the same assistant text, id, created, model and usage as bench/payloads.mjs's JSON body
// (aimock builds the rest of the response object itself); for PAYLOAD=sse the SSE payload's text,
// id and model, which aimock streams in chunks of its own.
import { LLMock } from '@copilotkit/aimock';
import { JSON_RESPONSE, SSE_FRAMES } from '../payloads.mjs';
import { serveUntilStopped } from '../servers/child-ipc.mjs';

const answer = JSON.parse(JSON_RESPONSE);
// The SSE payload's chunks: their deltas' text, and their id and model.
const chunks = SSE_FRAMES.map((frame) =>
  frame
    .toString()
    .replace(/^data: /, '')
    .trim(),
)
  .filter((line) => line !== '[DONE]')
  .map((line) => JSON.parse(line));
const streamed = {
  content: chunks.map((chunk) => chunk.choices[0].delta.content ?? '').join(''),
  id: chunks[0].id,
  created: chunks[0].created,
  model: chunks[0].model,
};
const payload = process.env.PAYLOAD;
if (payload !== 'json' && payload !== 'sse') throw new Error(`PAYLOAD must be json or sse, not ${payload}`);

const mock = new LLMock({ port: 0, host: '127.0.0.1' });
mock.onMessage(
  'hello',
  payload === 'sse'
    ? streamed
    : {
        content: answer.choices[0].message.content,
        id: answer.id,
        created: answer.created,
        model: answer.model,
        usage: { prompt_tokens: answer.usage.prompt_tokens, completion_tokens: answer.usage.completion_tokens, total_tokens: answer.usage.total_tokens },
      },
);
const url = await mock.start();
serveUntilStopped(Number(new URL(url).port), () => mock.stop());
