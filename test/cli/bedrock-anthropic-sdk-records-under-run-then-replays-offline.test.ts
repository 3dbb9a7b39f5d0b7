import { expect } from 'vitest';
import { recordsUnderRunThenReplaysOffline } from '../support/bedrock-client-scenario.js';

// Unmodified application code, as Anthropic's docs write it: the client takes its region and
// credentials from the environment, and (under modeltape run) its base URL from
// ANTHROPIC_BEDROCK_BASE_URL. It calls InvokeModel with an Anthropic Messages body, signs with
// its own SigV4 over fetch, and turns the streamed event stream back into Anthropic's events.
const APP = `import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
const client = new AnthropicBedrock({ maxRetries: 0 });
const model = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const out = {};
const message = await client.messages.create({ model, max_tokens: 64, messages: [{ role: 'user', content: process.env.PROMPT ?? 'Say hello' }] });
out.message = message.content;
const stream = client.messages.stream({ model, max_tokens: 64, messages: [{ role: 'user', content: 'Count to three' }] });
out.text = '';
for await (const event of stream) if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') out.text += event.delta.text;
console.log(JSON.stringify(out));
`;

recordsUnderRunThenReplaysOffline({
  name: 'unmodified AnthropicBedrock code records InvokeModel and its stream under modeltape run, re-signed, and replays offline with no credentials',
  app: APP,
  region: 'AWS_REGION',
  replayEnv: { AWS_PROFILE: 'modeltape-no-such-profile' },
  // The client leaves the model id's `:` unencoded (the AWS SDK sends %3A): see docs/bedrock.md.
  paths: ['/model/anthropic.claude-3-5-haiku-20241022-v1:0/invoke', '/model/anthropic.claude-3-5-haiku-20241022-v1:0/invoke-with-response-stream'],
  checkRequests: (requests) => expect(requests.map((request) => JSON.parse(request.body).anthropic_version)).toEqual([expect.any(String), expect.any(String)]),
  checkLive(live) {
    expect(live.message).toEqual([{ type: 'text', text: '42' }]);
    expect(String(live.text).length).toBeGreaterThan(0);
  },
  difference: 'at .messages[0].content: recorded "Say hello" sent "Say goodbye"',
});
