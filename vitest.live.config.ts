import { defineConfig } from "vitest/config";

/** npm run test:live (scripts/test-live.mjs runs it inside a loopback-only network namespace). */
export default defineConfig({
  test: {
    include: ["test/live/**/*.test.ts"],
    // one agent at a time: each test runs a real agent and a model server (2-core CI)
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 120_000,
    reporters: ["default", ["json", { outputFile: "test-artifacts/vitest-live.json" }]],
  },
});
