#!/usr/bin/env bash
# Safety in hostile worlds: arcctl drain against worlds as mean as production (job traces that
# lag, noisy runner logs, a 204 racing every job start, stale lists, pending pods, deadlines,
# secondary rate limits), next to the check-then-delete loop an operator would write
# (benches/naive-drain.sh) in the same worlds. Every figure comes from the sandbox's report of
# this one run. Prints markdown tables on stdout; progress on stderr.
#
#   benches/hostile.sh                 # builds release once; about 40 minutes on 2 cores
#   SEEDS="1 2" MODES=mixed benches/hostile.sh      # a quicker subset
#   LIMIT_RUNNERS=1000 benches/hostile.sh           # adds the secondary-limit run (~17 min more)
#   OLD_ARCCTL=path/to/arcctl benches/hostile.sh    # adds another arcctl build's drain
#
# Needs: cargo, curl, kubectl, python3.
set -euo pipefail

cd "$(dirname "$0")/.."
SEEDS="${SEEDS:-1 2 3 4 5}"
MODES="${MODES:-scale-set legacy mixed}"
RUNNERS="${RUNNERS:-300}"
LIMIT_RUNNERS="${LIMIT_RUNNERS:-0}"
OLD_ARCCTL="${OLD_ARCCTL:-}"
HOSTILE=(--busy 0.4 --job-rate 20 --job-duration 5s..40s --list-cache 60s
  --fault unsafe-204=1 --job-lag 3s --log-noise 40)
DRAIN=(drain --all -A --yes --max-unregister-rate 100/s -o json)

for tool in cargo curl kubectl python3; do
  command -v "${tool}" >/dev/null || { echo "hostile.sh: ${tool} is required" >&2; exit 2; }
done
say() { echo "hostile.sh: $*" >&2; }
say "building release once"
cargo build --release --quiet
ARCCTL="$(pwd)/target/release/arcctl"
NAIVE_DRAIN="$(pwd)/benches/naive-drain.sh"
W="$(mktemp -d)"
trap 'rm -rf "${W}"' EXIT

# row LABEL REPORT [DRAIN_JSON]: one table row from a sandbox report and a drain result.
row() {
  python3 - "$@" <<'PY'
import json, sys
label, report = sys.argv[1], json.load(open(sys.argv[2]))
out = {}
if len(sys.argv) > 3:
    try:
        out = json.load(open(sys.argv[3]))
    except Exception:
        out = {}
t = out.get("totals", {})
skipped = t.get("skipped_busy", 0) + t.get("skipped", 0) if t else "-"
counts = " / ".join(str(v) for v in (t.get("drained", "-"), skipped, t.get("held", "-"), t.get("failed", "-"), t.get("timed_out", "-")))
r = report
print(f"| {label} | {out.get('exit_code', '-')} | {counts} | **{r['jobs']['killed']}** | "
      f"**{r['runners']['stuck']}** | {r['rate_limit_violations']} | {r.get('rate_limit_refusals', '-')} |")
PY
}
# naive LABEL REPORT ERR: a row for the loop (no JSON result: count its own "drained" line).
naive_row() {
  local drained
  drained="$(grep -o '[0-9]* drained' "$3" | head -1 | awk '{print $1}')"
  python3 - "$1" "$2" "${drained:--}" <<'PY'
import json, sys
label, r, drained = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
print(f"| {label} | - | {drained} / - / - / - / - | **{r['jobs']['killed']}** | "
      f"**{r['runners']['stuck']}** | {r['rate_limit_violations']} | {r.get('rate_limit_refusals', '-')} |")
PY
}
header() {
  echo
  echo "$1"
  echo
  echo "| run | exit | drained / skipped / held / failed / timed out | jobs killed | stuck runners | rate-limit violations | refusals |"
  echo "| --- | ---: | --- | ---: | ---: | ---: | ---: |"
}
# one LABEL SANDBOX_ARGS... -- COMMAND...: runs COMMAND in a world, prints its row.
run_arcctl() {
  local label="$1" key="$2"; shift 2
  "${ARCCTL}" sandbox "$@" --report "${W}/${key}.json" >"${W}/${key}.out" 2>"${W}/${key}.err" || true
  row "${label}" "${W}/${key}.json" "${W}/${key}.out"
}

header "1. ${RUNNERS} runners, \`${HOSTILE[*]}\`, \`${DRAIN[*]}\` (default confirm window)"
for mode in ${MODES}; do
  for seed in ${SEEDS}; do
    say "1. ${mode} seed ${seed}"
    world=(--mode "${mode}" --seed "${seed}" --runners "${RUNNERS}" "${HOSTILE[@]}")
    run_arcctl "arcctl, ${mode}, seed ${seed}" "a-${mode}-${seed}" "${world[@]}" -- "${ARCCTL}" "${DRAIN[@]}"
    run_arcctl "arcctl --wait --timeout 5m, ${mode}, seed ${seed}" "w-${mode}-${seed}" \
      "${world[@]}" -- "${ARCCTL}" "${DRAIN[@]}" --wait --timeout 5m
    if [ -n "${OLD_ARCCTL}" ]; then
      "${OLD_ARCCTL}" sandbox "${world[@]}" --report "${W}/o-${mode}-${seed}.json" -- \
        "${OLD_ARCCTL}" "${DRAIN[@]}" >"${W}/o-${mode}-${seed}.out" 2>/dev/null || true
      row "older arcctl, ${mode}, seed ${seed}" "${W}/o-${mode}-${seed}.json" "${W}/o-${mode}-${seed}.out"
    fi
    "${ARCCTL}" sandbox "${world[@]}" --report "${W}/n-${mode}-${seed}.json" -- "${NAIVE_DRAIN}" \
      >/dev/null 2>"${W}/n-${mode}-${seed}.err" || true
    naive_row "naive loop, ${mode}, seed ${seed}" "${W}/n-${mode}-${seed}.json" "${W}/n-${mode}-${seed}.err"
  done
done

header "2. Traces lagging up to 8 s (\`--job-lag 8s\`), default flags"
for mode in ${MODES}; do
  say "2. ${mode}"
  world=(--mode "${mode}" --seed 1 --runners "${RUNNERS}" --busy 0.4 --job-rate 20
    --job-duration 5s..40s --list-cache 60s --fault unsafe-204=1 --job-lag 8s --log-noise 40)
  run_arcctl "arcctl, ${mode}" "l-${mode}" "${world[@]}" -- "${ARCCTL}" "${DRAIN[@]}"
done

header "3. 30 % of new runners pending (\`--pending 0.3\`), and a deadline (\`--timeout 8s --confirm-window 2s\` at 2 unregisters/s; with the default 20 s window arcctl refuses an 8 s deadline, exit 2)"
for mode in ${MODES}; do
  say "3. ${mode}"
  world=(--mode "${mode}" --seed 1 --runners 60 --busy 0.2 --job-rate 2 --job-duration 5s..40s
    --pending 0.3 --job-lag 3s --log-noise 40)
  run_arcctl "arcctl --pending 0.3, ${mode}" "p-${mode}" "${world[@]}" -- "${ARCCTL}" "${DRAIN[@]}"
  run_arcctl "arcctl --timeout 8s --max-unregister-rate 2/s, 30 runners, ${mode}" "t-${mode}" \
    --mode "${mode}" --seed 1 --runners 30 --busy 0.2 --job-rate 2 --job-duration 5s..40s \
    --job-lag 3s --log-noise 40 -- \
    "${ARCCTL}" drain --all -A --yes -o json --timeout 8s --confirm-window 2s --max-unregister-rate 2/s
done

if [ "${LIMIT_RUNNERS}" -gt 0 ]; then
  header "4. Secondary rate limit: ${LIMIT_RUNNERS} idle runners, \`--secondary-limit 300\`, \`--max-unregister-rate 50/s\`"
  say "4. secondary limit (${LIMIT_RUNNERS} runners; about a minute per 60)"
  run_arcctl "arcctl" "s" --runners "${LIMIT_RUNNERS}" --secondary-limit 300 -- \
    "${ARCCTL}" drain --all -A --yes -o json --max-unregister-rate 50/s
fi
