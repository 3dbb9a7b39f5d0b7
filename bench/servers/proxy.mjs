// The modeltape proxy under test, from the compiled package (dist/), in its own process.
// MODE=replay|record|passthrough, TAPE=file, UPSTREAM=http://127.0.0.1:<bare port> (openai override).
// BENCH_PROXY_MODULE: another build of dist/proxy/index.js to load instead (A/B a patched copy).
import { pathToFileURL } from 'node:url';
import { serveUntilStopped } from './child-ipc.mjs';

const { startProxy } = await import(process.env.BENCH_PROXY_MODULE ? pathToFileURL(process.env.BENCH_PROXY_MODULE).href : '../../dist/proxy/index.js');

const mode = process.env.MODE;
const options = {
  tape: process.env.TAPE,
  mode,
  upstreams: process.env.UPSTREAM ? { openai: process.env.UPSTREAM } : undefined,
};
if (mode === 'replay') options.repeat = 'last';
if (mode === 'record') options.allowRecordInCi = true;

const proxy = await startProxy(options);
serveUntilStopped(proxy.port, async () => {
  const summary = await proxy.close();
  const { heapUsed, rss } = process.memoryUsage();
  return { ...summary, heapUsedMb: heapUsed / 2 ** 20, rssMb: rss / 2 ** 20 };
});
