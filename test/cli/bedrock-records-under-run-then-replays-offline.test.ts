import { expect } from 'vitest';
import { recordsUnderRunThenReplaysOffline } from '../support/bedrock-client-scenario.js';

// Unmodified application code, as AWS's docs write it: the client takes its region, its
// credentials and (under modeltape run) its endpoint from the environment, and speaks HTTP/2.
const APP = `import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
const client = new BedrockRuntimeClient({ maxAttempts: 1 });
const modelId = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const out = {};
out.converse = (await client.send(new ConverseCommand({ modelId, messages: [{ role: 'user', content: [{ text: process.env.PROMPT ?? 'Say hello' }] }] }))).output;
const stream = await client.send(new ConverseStreamCommand({ modelId, messages: [{ role: 'user', content: [{ text: 'Count to three' }] }] }));
out.text = '';
for await (const event of stream.stream) out.text += event.contentBlockDelta?.delta?.text ?? '';
console.log(JSON.stringify(out));
`;

recordsUnderRunThenReplaysOffline({
  name: 'unmodified BedrockRuntimeClient code records under modeltape run, re-signed for the endpoint, and replays offline with no credentials',
  app: APP,
  region: 'AWS_REGION',
  noLookups: false,
  // A profile that does not exist, which would make the SDK's chain fail (or ask SSO) if the placeholders did not win.
  replayEnv: { AWS_PROFILE: 'modeltape-no-such-profile' },
  paths: ['/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse', '/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse-stream'],
  checkLive: (live) => expect(String(live.text).length).toBeGreaterThan(0),
  difference: 'at .messages[0].content[0].text: recorded "Say hello" sent "Say goodbye"',
});
