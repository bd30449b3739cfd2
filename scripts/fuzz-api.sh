#!/usr/bin/env bash
# Schema-driven fuzzing of the HTTP API: schemathesis (installed from PyPI into .cache/schemathesis-venv on first run)
# generates requests from /api/openapi.json, valid and invalid, against the API serving the bundled chain, and checks
# that no answer is a 5xx and that every answer's status, content type and body are the ones the document states.
# Usage: scripts/fuzz-api.sh [cases per operation and phase, default 2000] [seed, default 1]
#        FUZZ_MAX_TIME=<seconds> bounds the whole run (fuzzing then repeats until the time is spent).
# Exit status: schemathesis's (0 when every check passed). Figures: the summary at the end; the JUnit report in
# .cache/fuzz-api/.
set -euo pipefail
cd "$(dirname "$0")/.."

EXAMPLES="${1:-2000}"
SEED="${2:-1}"
VENV=.cache/schemathesis-venv
OUT=.cache/fuzz-api
SCHEMATHESIS_VERSION="${SCHEMATHESIS_VERSION:-4.32.5}"

if [ ! -x "$VENV/bin/schemathesis" ]; then
  echo "installing schemathesis $SCHEMATHESIS_VERSION into $VENV (once, about a minute)"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "schemathesis==$SCHEMATHESIS_VERSION"
fi
mkdir -p "$OUT"

echo "starting the API over the bundled chain (in-memory store)"
# one process (no npx/tsx wrapper), so the trap below stops the server itself
node --import tsx scripts/fuzz-api/serve.ts 0 >"$OUT/serve.log" 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true' EXIT
PORT=""
for _ in $(seq 1 120); do
  PORT="$(sed -n 's/^listening \([0-9]*\)$/\1/p' "$OUT/serve.log")"
  [ -n "$PORT" ] && break
  kill -0 "$SERVER" 2>/dev/null || { cat "$OUT/serve.log"; exit 1; }
  sleep 0.5
done
[ -n "$PORT" ] || { echo "the API did not start"; cat "$OUT/serve.log"; exit 1; }
echo "API on 127.0.0.1:$PORT; fuzzing with up to $EXAMPLES cases per operation and phase, seed $SEED"

# schemathesis keeps its example database in the working directory: keep it under .cache/ too
cd "$OUT"
"../schemathesis-venv/bin/schemathesis" run "http://127.0.0.1:$PORT/api/openapi.json" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,allow_header_conformance,unsupported_method,negative_data_rejection \
  --max-examples "$EXAMPLES" \
  --seed "$SEED" \
  --workers 1 \
  --suppress-health-check all \
  ${FUZZ_MAX_TIME:+--max-time "$FUZZ_MAX_TIME"} \
  --report junit,ndjson --report-dir . \
  --no-color
