import { defineConfig } from "vitest/config"

// Unit tests are pure and fast; integration tests run against the real Kafka broker and ClickHouse engine
// that test/support/globalSetup.ts provides (added with the infrastructure).
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    passWithNoTests: false,
    testTimeout: 60_000,
    hookTimeout: 180_000
  }
})
