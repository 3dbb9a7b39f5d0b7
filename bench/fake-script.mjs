// What the FakeProvider targets are scripted to say, and how their responses are checked.
//
// The fake answers every request with one sticky rule, so every response carries the same text;
// its clock is fixed, but its ids count up per call (`fake-chatcmpl-0`, `-1`, …), so no two bodies
// are byte-identical. A body is checked in two ways:
//   - checkFakeResponse: parsed and checked field by field (status, content type, the fake marker,
//     the scripted text; for SSE every frame, the deltas joining to the text, the final [DONE]);
//   - sameAsTemplate: every body, ids aside, byte-identical to one body that passed the first check.

/** The fake's plain JSON body for the bench's request is ~1 KB with this text (like the bare upstream's). */
export const FAKE_TEXT =
  'Hello! How can I help you today? I can answer questions, draft text, or explain code. ' +
  'Ask me about the weather, a recipe, or a bug in your program, and I will do my best. ' +
  'Short questions get short answers; longer ones get a plan first, then the details. ' +
  'If something is unclear, I will ask before guessing. What would you like to start with? ' +
  'I can also summarize a long document, compare two or three options, or outline the steps of a larger task.';

/**
 * How the streamed answer is cut. Default: 8 content pieces, so the fake's stream has the bare
 * upstream's 11 frames (role, 8 content, finish, [DONE]). BENCH_FAKE_CHUNKS=words: the fake's
 * default, one frame per word (~80 frames, a heavier stream than bare's).
 */
export const FAKE_CHUNKING = process.env.BENCH_FAKE_CHUNKS === 'words' ? 'words' : { size: Math.ceil(FAKE_TEXT.length / 8) };

/** Scripts a FakeProvider to answer every request with FAKE_TEXT. */
export function scriptFake(fake) {
  fake.when(() => true, { always: true }).willSay(FAKE_TEXT, { chunks: FAKE_CHUNKING });
  return fake;
}

const ID = /fake-chatcmpl-\d+/g;

/** The body with its counting ids replaced: equal for every response of one payload. */
export function normalizeFakeBody(body) {
  return body.replace(ID, 'fake-chatcmpl-N');
}

/** A verifyBody for autocannon (and the in-process loop): ids aside, the template's bytes. */
export function sameAsTemplate(template) {
  return (body) => normalizeFakeBody(body) === template;
}

/**
 * Problems with one response of the fake to the bench's request (an empty list when it is what
 * the script says). `headers` is a lower-case name → value record.
 */
export function checkFakeResponse(payload, { status, headers, body }) {
  const problems = [];
  const contentType = String(headers['content-type'] ?? '');
  if (status !== 200) return [`status ${status}: ${String(body).slice(0, 300)}`];
  if (headers['x-modeltape-fake'] !== '1') problems.push('no x-modeltape-fake: 1 header');
  if (payload === 'json') {
    if (!contentType.startsWith('application/json')) problems.push(`content-type ${contentType}`);
    let value;
    try {
      value = JSON.parse(body);
    } catch (error) {
      return [...problems, `body is not JSON: ${error.message}`];
    }
    if (!/^fake-chatcmpl-\d+$/.test(value?.id ?? '')) problems.push(`id ${JSON.stringify(value?.id)}`);
    if (value?.object !== 'chat.completion') problems.push(`object ${JSON.stringify(value?.object)}`);
    const choice = value?.choices?.[0];
    if (choice?.message?.role !== 'assistant' || choice?.message?.content !== FAKE_TEXT) problems.push('the message is not the scripted text');
    if (choice?.finish_reason !== 'stop') problems.push(`finish_reason ${JSON.stringify(choice?.finish_reason)}`);
    if (!(value?.usage?.total_tokens > 0)) problems.push('no usage');
    return problems;
  }
  if (!contentType.startsWith('text/event-stream')) problems.push(`content-type ${contentType}`);
  if (!body.endsWith('data: [DONE]\n\n')) problems.push('the stream does not end with data: [DONE]');
  const frames = body.split('\n\n');
  if (frames.pop() !== '') problems.push('the stream does not end with a blank line');
  const done = frames.pop();
  if (done !== 'data: [DONE]') problems.push(`last frame ${JSON.stringify(done?.slice(0, 80))}`);
  let text = '';
  const ids = new Set();
  let finish;
  for (const [index, frame] of frames.entries()) {
    if (!frame.startsWith('data: ')) {
      problems.push(`frame ${index} is not a data frame`);
      continue;
    }
    let chunk;
    try {
      chunk = JSON.parse(frame.slice(6));
    } catch (error) {
      problems.push(`frame ${index} is not JSON: ${error.message}`);
      continue;
    }
    if (chunk?.object !== 'chat.completion.chunk') problems.push(`frame ${index}: object ${JSON.stringify(chunk?.object)}`);
    ids.add(chunk?.id);
    const choice = chunk?.choices?.[0];
    if (index === 0 && choice?.delta?.role !== 'assistant') problems.push('the first frame does not open the assistant message');
    if (typeof choice?.delta?.content === 'string') text += choice.delta.content;
    if (choice?.finish_reason) finish = choice.finish_reason;
  }
  if (ids.size !== 1 || !/^fake-chatcmpl-\d+$/.test([...ids][0] ?? '')) problems.push(`chunk ids ${JSON.stringify([...ids].slice(0, 3))}`);
  if (text !== FAKE_TEXT) problems.push('the content deltas do not join to the scripted text');
  if (finish !== 'stop') problems.push(`finish_reason ${JSON.stringify(finish)}`);
  if (frames.length < 3) problems.push(`only ${frames.length + 1} frames`);
  return problems.slice(0, 5);
}

/** How many SSE frames a body has (for notes). */
export function frameCount(body) {
  return body.split('\n\n').length - 1;
}
