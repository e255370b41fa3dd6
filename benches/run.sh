#!/usr/bin/env bash
# The arcctl benchmark: arcctl against what an operator would write instead, on the sandbox
# with --latency 20ms, every figure and ratio measured in this one run. Prints one markdown
# table (and the machine it ran on) on stdout; progress on stderr.
#
#   benches/run.sh            # builds release once, then runs everything (about 10 minutes)
#   ARCCTL=target/debug/arcctl DRAIN_RUNNERS=200 NAIVE_RUNNERS=10 PACE_RUNNERS=20 \
#     LIST_RUNNERS=200 benches/run.sh   # a smoke run
#
# Scenarios:
#   1. drain of DRAIN_RUNNERS (2,000) idle runners, unlimited pace, --concurrency 32,
#      --confirm-window 2s: arcctl against the bound N x 3 round trips x 20 ms / 32 + the
#      confirm window, and per runner against benches/naive-drain.sh (list, then per idle
#      runner kubectl delete pod + curl DELETE) on NAIVE_RUNNERS (100) runners of the same
#      kind of world; the sandbox's CPU next to arcctl's (the report's "cpu").
#   2. pacing: PACE_RUNNERS (300) runners at --max-unregister-rate 5/s under a secondary limit:
#      achieved rate over configured rate (from the audit log's times), and violations.
#   3. list of LIST_RUNNERS (10,000) runners and pods: wall time and peak memory against
#      benches/naive-list.sh (curl pages + kubectl get pods -o json); and the same world's
#      drain --all -A --dry-run (drain reads the same way), its wall time and peak memory.
#   4. safety: the same busy world (job traffic, a 30 s list cache) drained by both.
#   5. `arcctl --help` start-up time (mean of 20 runs) and the installed binary's size.
#
# Needs: cargo, curl, kubectl, python3 and GNU time (/usr/bin/time; `apt-get install time`).
set -euo pipefail

cd "$(dirname "$0")/.."
DRAIN_RUNNERS="${DRAIN_RUNNERS:-2000}"
NAIVE_RUNNERS="${NAIVE_RUNNERS:-100}"
PACE_RUNNERS="${PACE_RUNNERS:-300}"
LIST_RUNNERS="${LIST_RUNNERS:-10000}"
LATENCY_MS=20
CONCURRENCY=32
CONFIRM_WINDOW_S="${CONFIRM_WINDOW_S:-2}"
RATE=5
SECONDARY_LIMIT="${SECONDARY_LIMIT:-1600}"

for tool in cargo curl kubectl python3; do
  command -v "${tool}" >/dev/null || { echo "run.sh: ${tool} is required" >&2; exit 2; }
done
if [ ! -x /usr/bin/time ] || ! /usr/bin/time -f %M true >/dev/null 2>&1; then
  echo "run.sh: GNU time is required for wall time and peak memory: apt-get install time" >&2
  exit 2
fi

say() { echo "run.sh: $*" >&2; }
# ARCCTL=path skips the build (a smoke run on a debug binary with small counts).
if [ -z "${ARCCTL:-}" ]; then
  say "building release once"
  cargo build --release --quiet
  ARCCTL="$(pwd)/target/release/arcctl"
fi
W="$(mktemp -d)"
trap 'rm -rf "${W}"' EXIT
NAIVE_DRAIN="$(pwd)/benches/naive-drain.sh"
NAIVE_LIST="$(pwd)/benches/naive-list.sh"

# py EXPR FILE...: evaluates EXPR with `r` bound to the first JSON file, `r2` to the second.
py() {
  python3 - "$@" <<'PY'
import json, sys
expr, files = sys.argv[1], sys.argv[2:]
docs = [json.load(open(f)) for f in files]
r = docs[0] if docs else None
r2 = docs[1] if len(docs) > 1 else None
print(eval(expr))
PY
}
requests='r["requests"]["github"]["total"] + r["requests"]["kube"]["total"]'
# Wall seconds and peak RSS (KiB) from GNU time's `-f "%e %M"` output file.
wall() { awk 'END {print $1}' "$1"; }
peak_mib() { awk 'END {printf "%.0f", $2 / 1024}' "$1"; }
# Peak RSS in MiB and in MB (10^6 bytes), for targets stated in MB.
peak_both() { awk 'END {printf "%.1f MiB = %.1f MB", $2 / 1024, $2 * 1024 / 1e6}' "$1"; }
world() { "${ARCCTL}" sandbox --latency "${LATENCY_MS}ms" "$@"; }

# 1. Drain of idle runners.
say "1. arcctl drain of ${DRAIN_RUNNERS} idle runners"
world --runners "${DRAIN_RUNNERS}" --busy 0 --job-rate 0 --report "${W}/d-arcctl.json" -- \
  /usr/bin/time -f "%e %M" -o "${W}/d-arcctl.time" \
  "${ARCCTL}" drain --all -A --yes --concurrency "${CONCURRENCY}" --max-unregister-rate 0 \
  --confirm-window "${CONFIRM_WINDOW_S}s" -o json >"${W}/d-arcctl.out" 2>"${W}/d-arcctl.err"
say "1. naive loop over ${NAIVE_RUNNERS} idle runners"
world --runners "${NAIVE_RUNNERS}" --busy 0 --job-rate 0 --report "${W}/d-naive.json" -- \
  /usr/bin/time -f "%e %M" -o "${W}/d-naive.time" "${NAIVE_DRAIN}" 2>"${W}/d-naive.err"
d_arc="$(wall "${W}/d-arcctl.time")"
d_naive="$(wall "${W}/d-naive.time")"
d_arc_n="$(py 'r["totals"]["drained"]' "${W}/d-arcctl.out")"
d_naive_n="$(grep -o '[0-9]* drained' "${W}/d-naive.err" | awk '{print $1}')"
# CPU seconds from the report: the sandbox's own, and the command's (arcctl, or the loop).
cpu_s() { py "f'{r[\"cpu\"][\"$1\"] / 1000:.1f}'" "$2"; }
bound="$(python3 -c "print(${DRAIN_RUNNERS} * 3 * ${LATENCY_MS} / 1000 / ${CONCURRENCY} + ${CONFIRM_WINDOW_S})")"

# 2. Pacing under a secondary limit.
say "2. pacing: ${PACE_RUNNERS} runners at ${RATE}/s under --secondary-limit ${SECONDARY_LIMIT}"
world --runners "${PACE_RUNNERS}" --busy 0 --job-rate 0 --secondary-limit "${SECONDARY_LIMIT}" \
  --report "${W}/p.json" -- \
  /usr/bin/time -f "%e %M" -o "${W}/p.time" \
  "${ARCCTL}" drain --all -A --yes --concurrency "${CONCURRENCY}" \
  --max-unregister-rate "${RATE}/s" --confirm-window "${CONFIRM_WINDOW_S}s" \
  --audit-log "${W}/p.audit" -o json >"${W}/p.out" 2>"${W}/p.err"
achieved="$(python3 - "${W}/p.audit" <<'PY'
import json, sys, datetime
def t(s):
    s = s.replace("Z", "+00:00")
    head, _, tz = s.partition("+")
    if "." in head:
        base, frac = head.split(".")
        head = base + "." + frac[:6]
    return datetime.datetime.fromisoformat(head + "+" + tz).timestamp()
times = sorted(t(l["time"]) for l in map(json.loads, open(sys.argv[1])) if l["action"] == "unregister")
print(f"{(len(times) - 1) / (times[-1] - times[0]):.2f}" if len(times) > 1 else "n/a")
PY
)"

# 3. List of many runners and pods.
say "3. list of ${LIST_RUNNERS} runners and pods"
world --runners "${LIST_RUNNERS}" --busy 0.3 --job-rate 0 --job-duration 600s \
  --report "${W}/l-arcctl.json" -- \
  /usr/bin/time -f "%e %M" -o "${W}/l-arcctl.time" \
  "${ARCCTL}" list -A -o json >"${W}/l-arcctl.out" 2>"${W}/l-arcctl.err"
world --runners "${LIST_RUNNERS}" --busy 0.3 --job-rate 0 --job-duration 600s \
  --report "${W}/l-naive.json" -- \
  env OUT_DIR="${W}" /usr/bin/time -f "%e %M" -o "${W}/l-naive.time" "${NAIVE_LIST}" \
  2>"${W}/l-naive.err"
l_listed="$(py 'len(r["items"])' "${W}/l-arcctl.out")"
# Drain reads the same way: the plan of a drain of all of them, which changes nothing.
world --runners "${LIST_RUNNERS}" --busy 0.3 --job-rate 0 --job-duration 600s \
  --report "${W}/l-plan.json" -- \
  /usr/bin/time -f "%e %M" -o "${W}/l-plan.time" \
  "${ARCCTL}" drain --all -A --dry-run -o json >"${W}/l-plan.out" 2>"${W}/l-plan.err"
l_planned="$(py 'len(r["runners"])' "${W}/l-plan.out")"

# 4. Safety: a busy world with a stale list, drained by both.
SAFE=(--runners 200 --busy 0.3 --job-rate 10 --job-duration 2s..8s --list-cache 30s --seed 7)
say "4. safety: the same busy world drained by both"
world "${SAFE[@]}" --report "${W}/s-arcctl.json" -- \
  "${ARCCTL}" drain --all -A --yes --concurrency "${CONCURRENCY}" --max-unregister-rate 0 \
  --confirm-window "${CONFIRM_WINDOW_S}s" -o json >"${W}/s-arcctl.out" 2>"${W}/s-arcctl.err" || true
world "${SAFE[@]}" --report "${W}/s-naive.json" -- "${NAIVE_DRAIN}" 2>"${W}/s-naive.err" || true

# 5. Start-up and size.
say "5. arcctl --help start-up, binary size"
startup_ms="$(python3 - "${ARCCTL}" <<'PY'
import subprocess, sys, time
runs = []
for _ in range(20):
    t = time.perf_counter()
    subprocess.run([sys.argv[1], "--help"], stdout=subprocess.DEVNULL, check=True)
    runs.append(time.perf_counter() - t)
print(f"{sum(runs) / len(runs) * 1000:.1f}")
PY
)"
size_mib="$(python3 -c "import os; print(f'{os.path.getsize(\"${ARCCTL}\") / 1048576:.1f}')")"

ratio() { python3 -c "print(f'{$1:.1f}')"; }
per() { python3 -c "print(f'{$1 * 1000 / $2:.1f}')"; }
cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
mem="$(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"

cat <<TABLE
Machine: ${cpu}, $(nproc) cores, ${mem}, $(uname -sr); $(date -u +%Y-%m-%d); sandbox --latency ${LATENCY_MS}ms.

| scenario | tool | wall | per runner | requests | peak memory | jobs killed | result |
| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |
| 1. drain ${DRAIN_RUNNERS} idle, --concurrency ${CONCURRENCY}, unlimited pace, --confirm-window ${CONFIRM_WINDOW_S}s | arcctl | ${d_arc} s | $(per "${d_arc}" "${d_arc_n}") ms | $(py "${requests}" "${W}/d-arcctl.json") | $(peak_mib "${W}/d-arcctl.time") MiB | $(py 'r["jobs"]["killed"]' "${W}/d-arcctl.json") | ${d_arc_n} drained |
| | sandbox CPU / arcctl CPU | | | | | | $(cpu_s sandbox_ms "${W}/d-arcctl.json") s / $(cpu_s command_ms "${W}/d-arcctl.json") s |
| | naive loop (curl + kubectl), ${NAIVE_RUNNERS} runners | ${d_naive} s | $(per "${d_naive}" "${d_naive_n}") ms | $(py "${requests}" "${W}/d-naive.json") | $(peak_mib "${W}/d-naive.time") MiB | $(py 'r["jobs"]["killed"]' "${W}/d-naive.json") | ${d_naive_n} drained |
| | **arcctl vs loop, per runner** | | **$(ratio "(${d_naive} / ${d_naive_n}) / (${d_arc} / ${d_arc_n})") x faster** | | | | |
| | RTT bound ${DRAIN_RUNNERS} x 3 x ${LATENCY_MS} ms / ${CONCURRENCY} + ${CONFIRM_WINDOW_S} s confirm window | ${bound} s | | | | | **arcctl at $(ratio "${d_arc} / ${bound}") x the bound** |
| 2. pacing, ${PACE_RUNNERS} runners at ${RATE}/s, --secondary-limit ${SECONDARY_LIMIT} | arcctl | $(wall "${W}/p.time") s | | $(py "${requests}" "${W}/p.json") | $(peak_mib "${W}/p.time") MiB | $(py 'r["jobs"]["killed"]' "${W}/p.json") | achieved ${achieved}/s = **$(ratio "${achieved} / ${RATE}") x configured**; **$(py 'r["rate_limit_violations"]' "${W}/p.json") violations** |
| 3. list ${LIST_RUNNERS} runners + ${LIST_RUNNERS} pods | arcctl list -A -o json | $(wall "${W}/l-arcctl.time") s | | $(py "${requests}" "${W}/l-arcctl.json") | $(peak_both "${W}/l-arcctl.time") | | ${l_listed} runners listed |
| | arcctl drain --all -A --dry-run -o json | $(wall "${W}/l-plan.time") s | | $(py "${requests}" "${W}/l-plan.json") | $(peak_both "${W}/l-plan.time") | | ${l_planned} runners planned, nothing changed |
| | curl pages + kubectl get pods -o json | $(wall "${W}/l-naive.time") s | | $(py "${requests}" "${W}/l-naive.json") | $(peak_mib "${W}/l-naive.time") MiB | | raw JSON, not joined |
| 4. safety: 200 runners, 30% busy, 10 jobs/s, 30 s list cache | arcctl | | | $(py "${requests}" "${W}/s-arcctl.json") | | **$(py 'r["jobs"]["killed"]' "${W}/s-arcctl.json")** | $(py 'r["totals"]["drained"]' "${W}/s-arcctl.out") drained, the rest skipped or held |
| | naive loop | | | $(py "${requests}" "${W}/s-naive.json") | | **$(py 'r["jobs"]["killed"]' "${W}/s-naive.json")** | $(grep -o '[0-9]* drained' "${W}/s-naive.err" | head -1) |
| 5. start-up, size | arcctl --help (mean of 20) | ${startup_ms} ms | | | | | release binary ${size_mib} MiB |
TABLE
