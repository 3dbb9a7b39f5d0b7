import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { maskedIo, progressReporter, writeControl, type ResolvedCommandIo } from './io.js';

// Obviously fake, built at run time so no file holds a key-shaped literal.
const FAKE_KEY = ['sk', 'proj', `${'FAKE'.repeat(8)}0000`].join('-');

function collectingIo(): { io: ResolvedCommandIo; written: () => string } {
  let text = '';
  const stream = Object.assign(
    new Writable({
      decodeStrings: false,
      write(chunk: string, _encoding, done) {
        text += chunk;
        done();
      },
    }),
    { isTTY: true },
  );
  const io = { stdout: stream, stderr: stream, env: {}, cwd: '.', signals: new EventEmitter(), stdin: process.stdin };
  return { io: maskedIo(io), written: () => text };
}

describe('the output streams of a command', () => {
  test('mask every key and escape every control character written to them, but the line feed and the tab', () => {
    const { io, written } = collectingIo();
    io.stdout.write(`key ${FAKE_KEY}\u001b]0;title\u0007\u009b2J\u0000\r\n\tend`);
    expect(written()).toBe('key [openai-key 44 chars]\\u001b]0;title\\u0007\\u009b2J\\u0000\\r\n\tend');
  });

  test("only modeltape's own progress line writes a control sequence, and what it shows is escaped", () => {
    const { io, written } = collectingIo();
    writeControl(io.stderr, 'clearLine');
    expect(written()).toBe('\r\u001b[2K');
    const progress = progressReporter(io, 'reading tape\u001b[2J.jsonl');
    progress(2_500, 10_000);
    progress.end();
    expect(written()).toBe('\r\u001b[2K\rreading tape\\u001b[2J.jsonl 2,500/10,000 lines (25%)\r\u001b[2K');
  });
});
