// The modeltape proxy under test, from the compiled package (dist/), in its own process.
// MODE=replay|record|passthrough, TAPE=file, UPSTREAM=http://127.0.0.1:<bare port> (openai override).
import { startProxy } from '../../dist/proxy/index.js';
import { serveUntilStopped } from './child-ipc.mjs';

const mode = process.env.MODE;
const options = {
  tape: process.env.TAPE,
  mode,
  upstreams: process.env.UPSTREAM ? { openai: process.env.UPSTREAM } : undefined,
};
if (mode === 'replay') options.repeat = 'last';
if (mode === 'record') options.allowRecordInCi = true;

const proxy = await startProxy(options);
serveUntilStopped(proxy.port, () => proxy.close());
