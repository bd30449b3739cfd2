import { defineConfig } from "vitest/config"

// Two projects: `unit` (everything under test/ except integration/) is pure and starts nothing, so
// `npx vitest run test/unit` stays fast; `integration` gets the real Kafka broker and ClickHouse engine from
// test/support/globalSetup.ts. Each integration file runs in its own process (forks), which embedded chdb needs.
export default defineConfig({
  test: {
    passWithNoTests: false,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: ["test/integration/**", "**/node_modules/**"],
          testTimeout: 60_000
        }
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts"],
          globalSetup: ["test/support/globalSetup.ts"],
          pool: "forks",
          testTimeout: 120_000,
          hookTimeout: 180_000
        }
      }
    ]
  }
})
