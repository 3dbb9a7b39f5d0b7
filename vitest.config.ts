import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{guard,schema,recordings,replay,fake-provider,proxy,session,runtime,testkit,cli,test}/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
