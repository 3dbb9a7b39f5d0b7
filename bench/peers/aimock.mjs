// CopilotKit's aimock (LLMock) serving the bench's OpenAI chat answer from one fixture, in its own
// process: the same assistant text, id, created, model and usage as bench/payloads.mjs's JSON body
// (aimock builds the rest of the response object itself). PAYLOAD=json|sse.
import { LLMock } from '@copilotkit/aimock';
import { JSON_RESPONSE } from '../payloads.mjs';
import { serveUntilStopped } from '../servers/child-ipc.mjs';

const answer = JSON.parse(JSON_RESPONSE);
const mock = new LLMock({ port: 0, host: '127.0.0.1' });
mock.onMessage('hello', {
  content: answer.choices[0].message.content,
  id: answer.id,
  created: answer.created,
  model: answer.model,
  usage: { prompt_tokens: answer.usage.prompt_tokens, completion_tokens: answer.usage.completion_tokens, total_tokens: answer.usage.total_tokens },
});
const url = await mock.start();
serveUntilStopped(Number(new URL(url).port), () => mock.stop());
