// Produces examples/tapes/weather.jsonl with modeltape's own tooling, from a local stand-in
// upstream (no real model, no key, no network): the proxy records in front of the stand-in while
// examples/weather.mjs runs through it. Deterministic: running it again gives the same bytes.
//   npm run build && node examples/record-example.mjs
import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { startProxy } from 'modeltape/proxy';
import { askForWeather } from './weather.mjs';

export const EXAMPLE_TAPE = fileURLToPath(new URL('./tapes/weather.jsonl', import.meta.url));

const created = 1764460800;
const usage = (prompt, completion) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
});

// Answers in OpenAI's real wire shapes: a tool call first, then a streamed text answer.
function standInReply(body) {
  if (!body.messages.some((message) => message.role === 'tool')) {
    return {
      json: {
        id: 'chatcmpl-standin-0001',
        object: 'chat.completion',
        created,
        model: 'gpt-4.1-mini-2025-04-14',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'call_standin_0001', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
              refusal: null,
              annotations: [],
            },
            logprobs: null,
            finish_reason: 'tool_calls',
          },
        ],
        usage: usage(64, 15),
        service_tier: 'default',
        system_fingerprint: 'fp_standin',
      },
    };
  }
  const chunk = (delta, finish = null) => ({
    id: 'chatcmpl-standin-0002',
    object: 'chat.completion.chunk',
    created,
    model: 'gpt-4.1-mini-2025-04-14',
    service_tier: 'default',
    system_fingerprint: 'fp_standin',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    usage: null,
  });
  const pieces = ['It is', ' 14', '°C', ' with', ' light', ' rain', ' in', ' Paris', '.'];
  const events = [
    chunk({ role: 'assistant', content: '', refusal: null }),
    ...pieces.map((content) => chunk({ content })),
    chunk({}, 'stop'),
    { ...chunk({}), choices: [], usage: usage(96, 9) },
  ];
  return { sse: [...events.map((event) => `data: ${JSON.stringify(event)}\n\n`), 'data: [DONE]\n\n'] };
}

export async function recordExample(tape = EXAMPLE_TAPE) {
  const standIn = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      response.sendDate = false;
      const reply = standInReply(JSON.parse(text));
      if (reply.json) {
        response.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_standin_0001' });
        response.end(JSON.stringify(reply.json));
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'x-request-id': 'req_standin_0002' });
      for (const frame of reply.sse) response.write(frame);
      response.end();
    });
  });
  await new Promise((resolve) => standIn.listen(0, '127.0.0.1', resolve));
  rmSync(tape, { force: true });
  const proxy = await startProxy({
    tape,
    mode: 'record',
    allowRecordInCi: true,
    upstreams: { openai: `http://127.0.0.1:${standIn.address().port}` },
    // A fixed clock: frame timings are all 0, so the tape is the same bytes every time.
    clock: () => 0,
    // …and a fixed date, the day the stand-in's answers say they were created.
    now: () => new Date(created * 1000),
    tapeNotes: {
      _note:
        'Example tape, recorded by examples/record-example.mjs from a local stand-in upstream (no real model). Regenerate: npm run build && node examples/record-example.mjs',
    },
  });
  try {
    return await askForWeather(new OpenAI({ apiKey: 'stand-in-needs-no-key', baseURL: proxy.baseUrls.openai, maxRetries: 0 }));
  } finally {
    await proxy.close();
    await new Promise((resolve) => standIn.close(resolve));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await recordExample();
  console.log(`recorded ${EXAMPLE_TAPE}: ${result.answer}`);
}
