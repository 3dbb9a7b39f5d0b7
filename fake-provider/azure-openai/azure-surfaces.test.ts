import { describe, expect, test } from 'vitest';
import { FakeProvider } from '../fake-provider.js';
import { parsedChunk, splicedChunk } from './azure-surfaces.js';

// The frames of OpenAI chat streams as the fake writes them (text, an emoji and quotes, parallel
// tool calls, a refusal, a filtered finish, two choices): what the Azure surface annotates.
async function chatFrames(): Promise<string[]> {
  const fake = new FakeProvider()
    .willSay('Hello "there" ✨ — café', { chunks: { size: 3 } })
    .willCallTool('get_weather', { city: 'Paris' })
    .willCallTool('get_time', { zone: 'CET' })
    .endTurn()
    .willSay('I cannot help with that.', { finish: 'refusal' })
    .willSay('Partial answer', { finish: 'content-filter' })
    .willSay(['One of two', 'Two of two']);
  const frames: string[] = [];
  for (const n of [1, 1, 1, 1, 2]) {
    const response = await fake.fetch('https://api.openai.com/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'gpt-4o',
        n,
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'Hi' }],
        tools: ['get_weather', 'get_time'].map((name) => ({ type: 'function', function: { name, parameters: { type: 'object', properties: {} } } })),
      }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
    frames.push(...(await response.text()).split(/(?<=\n\n)/));
  }
  return frames;
}

describe("the Azure chat stream's annotations", () => {
  test('spliced into a chunk of one choice are byte for byte what reading and writing the chunk gives', async () => {
    const frames = await chatFrames();
    let spliced = 0;
    for (const frame of frames) {
      const fast = splicedChunk(frame);
      if (fast === undefined) continue;
      spliced++;
      expect(fast).toBe(parsedChunk(frame));
    }
    // Every chunk with a choice took the fast path; the usage chunk and [DONE] have none.
    const withChoice = frames.filter((frame) => frame.includes('"choices":[{'));
    expect(spliced).toBe(withChoice.length);
    expect(spliced).toBeGreaterThan(20);
    expect(frames.some((frame) => frame.includes('"finish_reason":"content_filter"'))).toBe(true);
    expect(frames.some((frame) => frame.includes('"tool_calls"'))).toBe(true);
  });
});
