#!/usr/bin/env bash
# The drain an operator would write without arcctl: list the runners with curl, then for each
# idle one delete its pod with kubectl and unregister it with curl. Sequential, and it checks
# "idle" once, in the list, before deleting: the check-then-delete race arcctl exists to avoid.
#
# Kept as the baseline of benches/run.sh, and to show that in a busy world it kills jobs:
#   arcctl sandbox --runners 50 --busy 0.3 --job-rate 5 -- benches/naive-drain.sh
#
# Environment (set by `arcctl sandbox -- ...`): GITHUB_API_URL, GH_TOKEN, ARCCTL_ORG,
# KUBECONFIG; NAMESPACE defaults to arc-runners.
set -euo pipefail

: "${GITHUB_API_URL:?GITHUB_API_URL is not set (run me inside arcctl sandbox -- ...)}"
: "${GH_TOKEN:?GH_TOKEN is not set}"
: "${ARCCTL_ORG:?ARCCTL_ORG is not set}"
NAMESPACE="${NAMESPACE:-arc-runners}"
api="${GITHUB_API_URL%/}/orgs/${ARCCTL_ORG}/actions/runners"

command -v curl >/dev/null || { echo "naive-drain: curl is required" >&2; exit 2; }
command -v kubectl >/dev/null || { echo "naive-drain: kubectl is required" >&2; exit 2; }

# "ID NAME" for each online, not busy runner in one page of the list.
if command -v jq >/dev/null; then
  idle_of_page() { jq -r '.runners[] | select(.status == "online" and (.busy | not)) | "\(.id) \(.name)"'; }
  count_of_page() { jq -r '.runners | length'; }
else
  idle_of_page() {
    python3 -c 'import json,sys
for r in json.load(sys.stdin)["runners"]:
    if r["status"] == "online" and not r["busy"]: print(r["id"], r["name"])'
  }
  count_of_page() { python3 -c 'import json,sys; print(len(json.load(sys.stdin)["runners"]))'; }
fi

gh() { curl -sS --fail-with-body -H "Authorization: Bearer ${GH_TOKEN}" \
  -H "Accept: application/vnd.github+json" "$@"; }

idle=()
page=1
while :; do
  body="$(gh "${api}?per_page=100&page=${page}")"
  while read -r id name; do
    [ -n "${id}" ] && idle+=("${id} ${name}")
  done < <(printf '%s' "${body}" | idle_of_page)
  [ "$(printf '%s' "${body}" | count_of_page)" -lt 100 ] && break
  page=$((page + 1))
done

drained=0
failed=0
for entry in "${idle[@]}"; do
  id="${entry%% *}"
  name="${entry#* }"
  if kubectl delete pod -n "${NAMESPACE}" "${name}" --wait=false >/dev/null \
    && gh -o /dev/null -X DELETE "${api}/${id}"; then
    drained=$((drained + 1))
  else
    failed=$((failed + 1))
  fi
done
echo "naive-drain: ${#idle[@]} idle, ${drained} drained, ${failed} failed" >&2
[ "${failed}" -eq 0 ]
