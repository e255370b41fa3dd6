#!/usr/bin/env bash
# What an operator would run instead of `arcctl list`: every page of the runner list with curl,
# and every runner pod with `kubectl get pods -o json`. The baseline of benches/run.sh.
# Environment as set by `arcctl sandbox -- ...`: GITHUB_API_URL, GH_TOKEN, ARCCTL_ORG,
# KUBECONFIG; NAMESPACE defaults to arc-runners. Output goes to OUT_DIR (default a temp dir).
set -euo pipefail

: "${GITHUB_API_URL:?GITHUB_API_URL is not set (run me inside arcctl sandbox -- ...)}"
: "${GH_TOKEN:?GH_TOKEN is not set}"
: "${ARCCTL_ORG:?ARCCTL_ORG is not set}"
NAMESPACE="${NAMESPACE:-arc-runners}"
out="${OUT_DIR:-$(mktemp -d)}"
api="${GITHUB_API_URL%/}/orgs/${ARCCTL_ORG}/actions/runners"

page=1
while :; do
  curl -sS --fail-with-body -H "Authorization: Bearer ${GH_TOKEN}" \
    -H "Accept: application/vnd.github+json" \
    -o "${out}/runners-${page}.json" "${api}?per_page=100&page=${page}"
  if command -v jq >/dev/null; then
    n="$(jq '.runners | length' "${out}/runners-${page}.json")"
  else
    n="$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["runners"]))' "${out}/runners-${page}.json")"
  fi
  [ "${n}" -lt 100 ] && break
  page=$((page + 1))
done
kubectl get pods -n "${NAMESPACE}" -o json >"${out}/pods.json"
echo "naive-list: ${page} pages of runners, $(wc -c <"${out}/pods.json") bytes of pods" >&2
