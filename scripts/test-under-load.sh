#!/usr/bin/env bash
# Runs the test suite with every CPU core saturated by other work: one busy-loop process per
# core (node -e 'for(;;){}'), as on a shared CI runner or a laptop busy with something else.
# The suite must pass so: tests wait on events, not on timers, and time budgets are safety nets.
#
#   scripts/test-under-load.sh                 # npm test, all cores busy
#   scripts/test-under-load.sh test/mcp        # arguments go to vitest
#   scripts/test-under-load.sh --shuffle       # files (and tests) in a random order; the seed is printed
#   scripts/test-under-load.sh --shuffle=1234  # ... in the order of that seed, to run a failing order again
#   ONEWAY_LOAD_PROCS=4 scripts/test-under-load.sh
#
# The suite must pass in any order of its files too: files of a worker share a module cache
# (vitest.config.ts), and a file must not depend on what ran before it (npm run check:mocks).
#
# Exits with the status of the tests. The busy loops are stopped whatever happens (trap).
set -u
cd "$(dirname "$0")/.."

# --shuffle[=SEED] becomes vitest's --sequence.shuffle with a seed we print (vitest's own default
# seed is the time, and a failing order is worth running again).
args=()
for arg in "$@"; do
  case "$arg" in
    --shuffle) args+=(--sequence.shuffle "--sequence.seed=$(node -p 'Math.floor(Math.random() * 2 ** 31)')") ;;
    --shuffle=*) args+=(--sequence.shuffle "--sequence.seed=${arg#--shuffle=}") ;;
    *) args+=("$arg") ;;
  esac
done
for arg in "${args[@]}"; do
  case "$arg" in --sequence.seed=*) echo "test-under-load: shuffled order, seed ${arg#--sequence.seed=} (--shuffle=${arg#--sequence.seed=} runs it again)" >&2 ;; esac
done

procs="${ONEWAY_LOAD_PROCS:-$(node -p 'require("node:os").availableParallelism()')}"
pids=()
stop_load() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
  pids=()
}
trap stop_load EXIT
trap 'stop_load; exit 130' INT
trap 'stop_load; exit 143' TERM

for _ in $(seq 1 "$procs"); do
  node -e 'for (;;) {}' &
  pids+=("$!")
done
echo "test-under-load: ${#pids[@]} busy loop(s) running (pids ${pids[*]}); running the tests" >&2

started=$(date +%s)
npm test -- ${args[@]+"${args[@]}"}
status=$?
echo "test-under-load: tests exited with status $status after $(( $(date +%s) - started )) s, with ${#pids[@]} core(s) busy" >&2
exit "$status"
