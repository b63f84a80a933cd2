import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "generated/tests/**/*.test.ts"],
    // the live drivers' tests run the real agents: npm run test:live (vitest.live.config.ts)
    exclude: ["test/live/**", "**/node_modules/**"],
    testTimeout: 60_000,
    // The JSON report lets CI print a plain "N passed, N failed" line.
    reporters: ["default", ["json", { outputFile: "test-artifacts/vitest.json" }]],
  },
});
