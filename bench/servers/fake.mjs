// The FakeProvider under test, served over HTTP by its own listener (fake.listen), from the
// compiled package (dist/), in its own process. One sticky rule answers every request with the
// same text (bench/fake-script.mjs); on stop it reports what the fake saw.
import { pathToFileURL } from 'node:url';
import { scriptFake } from '../fake-script.mjs';
import { serveUntilStopped } from './child-ipc.mjs';

// BENCH_FAKE_MODULE: another build of dist/fake-provider/index.js to load instead (A/B a patched copy).
const { FakeProvider } = await import(process.env.BENCH_FAKE_MODULE ? pathToFileURL(process.env.BENCH_FAKE_MODULE).href : '../../dist/fake-provider/index.js');

// As `modeltape fake` runs it: the latest 1,000 calls kept, not every call.
const fake = scriptFake(new FakeProvider({ historyLimit: 1000 }));
const server = await fake.listen({ port: 0 });

serveUntilStopped(server.port, async () => {
  await server.close();
  const { heapUsed, rss } = process.memoryUsage();
  // The latest calls only: the run makes far more than the history keeps, and calls() would refuse.
  const calls = fake.calls({ latest: true });
  const statuses = {};
  for (const call of calls) statuses[call.status] = (statuses[call.status] ?? 0) + 1;
  const problems = fake.problems();
  return {
    calls: fake.callCount,
    statuses,
    problems: problems.slice(0, 3),
    problemCount: problems.length,
    heapUsedMb: heapUsed / 2 ** 20,
    rssMb: rss / 2 ** 20,
  };
});
