# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_arcctl_global_optspecs
    string join \n h/help V/version
end

function __fish_arcctl_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_arcctl_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_arcctl_using_subcommand
    set -l cmd (__fish_arcctl_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c arcctl -n "__fish_arcctl_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c arcctl -n "__fish_arcctl_needs_command" -s V -l version -d 'Print version'
complete -c arcctl -n "__fish_arcctl_needs_command" -f -a "list" -d 'Show runners joined with their pods'
complete -c arcctl -n "__fish_arcctl_needs_command" -f -a "drain" -d 'Take runners out of service: unregister, confirm idle, delete'
complete -c arcctl -n "__fish_arcctl_needs_command" -f -a "recreate" -d 'Replace runners in rolling batches: unregister, confirm idle, delete, wait for the replacement'
complete -c arcctl -n "__fish_arcctl_needs_command" -f -a "sandbox" -d 'Run a simulated GitHub organization and ARC cluster with live job traffic'
complete -c arcctl -n "__fish_arcctl_needs_command" -f -a "guard" -d 'Guard evictions of runner pods: an admission webhook that drains a runner before its pod goes'
complete -c arcctl -n "__fish_arcctl_needs_command" -f -a "completions" -d 'Print a shell completion script to stdout'
complete -c arcctl -n "__fish_arcctl_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c arcctl -n "__fish_arcctl_using_subcommand list" -s l -l selector -d 'Pod label selector (`key=value`, `key!=value`, `key in (a,b)`, `key`, `!key`)' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand list" -l node -d 'Only runner pods scheduled on this node' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand list" -l scale-set -d 'Only runners of this ARC scale set, RunnerDeployment or RunnerSet' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand list" -l label -d 'Only runners that carry this GitHub label (repeatable; all must match)' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand list" -l state -d 'Only runners in this state (repeatable)' -r -f -a "idle\t''
busy\t''
offline\t''
pod-only\t''
registration-only\t''
conflict\t''"
complete -c arcctl -n "__fish_arcctl_using_subcommand list" -l concurrency -d 'How many pages of GitHub\'s runner list are read at once' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand list" -l org -d 'Organization whose runners to use [env: ARCCTL_ORG]' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand list" -l repo -d 'Repository (OWNER/REPO) whose runners to use [env: ARCCTL_REPO]' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand list" -l enterprise -d 'Enterprise (slug) whose runners to use [env: ARCCTL_ENTERPRISE]' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand list" -l group -d 'Only runners of this runner group (name or id); uses the runner-group endpoints' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand list" -l github-url -d 'GitHub API base URL [env: GITHUB_API_URL] [default: https://api.github.com]; for GitHub Enterprise Server use https://HOST/api/v3' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand list" -l token-file -d 'Read the GitHub token from this file (GH_TOKEN and GITHUB_TOKEN take precedence)' -r -F
complete -c arcctl -n "__fish_arcctl_using_subcommand list" -l app-id -d 'GitHub App id, to authenticate as an App installation instead of with a token [env: ARCCTL_APP_ID]' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand list" -l installation-id -d 'GitHub App installation id [env: ARCCTL_INSTALLATION_ID]' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand list" -l app-key -d 'GitHub App private key, a PEM file [env: ARCCTL_APP_KEY_FILE]' -r -F
complete -c arcctl -n "__fish_arcctl_using_subcommand list" -l ca-cert -d 'Extra root certificate (PEM) to trust, e.g. for GitHub Enterprise Server [env: ARCCTL_CA_CERT]' -r -F
complete -c arcctl -n "__fish_arcctl_using_subcommand list" -l request-timeout -d 'Give up on a GitHub or Kubernetes request with no answer after this long, e.g. `10s`' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand list" -l kubeconfig -d 'Path to the kubeconfig file [env: KUBECONFIG] (default: ~/.kube/config, then in-cluster)' -r -F
complete -c arcctl -n "__fish_arcctl_using_subcommand list" -l context -d 'The kubeconfig context to use' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand list" -s n -l namespace -d 'Namespace where runner pods live (repeatable; default: the context\'s namespace)' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand list" -s o -l output -d 'Output format for data on stdout' -r -f -a "table\t'A table of the main columns'
wide\t'A table with more columns'
json\t'One JSON document (stable schema, see the README)'
yaml\t'The JSON document as YAML'
name\t'One `runner/NAME` per line'"
complete -c arcctl -n "__fish_arcctl_using_subcommand list" -l color -d 'When to use colour (NO_COLOR disables it in auto mode) [env: NO_COLOR]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c arcctl -n "__fish_arcctl_using_subcommand list" -s A -l all-namespaces -d 'Look for runner pods in all namespaces'
complete -c arcctl -n "__fish_arcctl_using_subcommand list" -l no-headers -d 'Don\'t print table headers'
complete -c arcctl -n "__fish_arcctl_using_subcommand list" -l no-progress -d 'Never show progress bars'
complete -c arcctl -n "__fish_arcctl_using_subcommand list" -s q -l quiet -d 'Print only data and errors'
complete -c arcctl -n "__fish_arcctl_using_subcommand list" -s v -l verbose -d 'More detail on stderr (repeatable: -v requests, -vv responses, -vvv everything)'
complete -c arcctl -n "__fish_arcctl_using_subcommand list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c arcctl -n "__fish_arcctl_using_subcommand list" -s V -l version -d 'Print version'
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -s l -l selector -d 'Pod label selector (`key=value`, `key!=value`, `key in (a,b)`, `key`, `!key`)' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l node -d 'Only runner pods scheduled on this node' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l scale-set -d 'Only runners of this ARC scale set, RunnerDeployment or RunnerSet' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l label -d 'Only runners that carry this GitHub label (repeatable; all must match)' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l timeout -d 'Give up after this long (0 = no limit), e.g. `10m`. No unregister starts later than one confirm window before it, and a runner already unregistered is still confirmed and deleted (or held) after it, so it must be longer than --confirm-window' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l poll-interval -d 'How often to poll a busy runner while waiting' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l confirm-window -d 'After an unregister, how long to watch a runner that shows no proof of being idle before taking the absence of any job trace as proof (at least 2s)' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l concurrency -d 'How many reads and Kubernetes operations run at once' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l max-unregister-rate -d 'Pace of unregister (DELETE) calls to GitHub, e.g. `1/s`, `3/s`, `30/m`' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l audit-log -d 'Append one JSON line per API mutation to this file' -r -F
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l org -d 'Organization whose runners to use [env: ARCCTL_ORG]' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l repo -d 'Repository (OWNER/REPO) whose runners to use [env: ARCCTL_REPO]' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l enterprise -d 'Enterprise (slug) whose runners to use [env: ARCCTL_ENTERPRISE]' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l group -d 'Only runners of this runner group (name or id); uses the runner-group endpoints' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l github-url -d 'GitHub API base URL [env: GITHUB_API_URL] [default: https://api.github.com]; for GitHub Enterprise Server use https://HOST/api/v3' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l token-file -d 'Read the GitHub token from this file (GH_TOKEN and GITHUB_TOKEN take precedence)' -r -F
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l app-id -d 'GitHub App id, to authenticate as an App installation instead of with a token [env: ARCCTL_APP_ID]' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l installation-id -d 'GitHub App installation id [env: ARCCTL_INSTALLATION_ID]' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l app-key -d 'GitHub App private key, a PEM file [env: ARCCTL_APP_KEY_FILE]' -r -F
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l ca-cert -d 'Extra root certificate (PEM) to trust, e.g. for GitHub Enterprise Server [env: ARCCTL_CA_CERT]' -r -F
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l request-timeout -d 'Give up on a GitHub or Kubernetes request with no answer after this long, e.g. `10s`' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l kubeconfig -d 'Path to the kubeconfig file [env: KUBECONFIG] (default: ~/.kube/config, then in-cluster)' -r -F
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l context -d 'The kubeconfig context to use' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -s n -l namespace -d 'Namespace where runner pods live (repeatable; default: the context\'s namespace)' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -s o -l output -d 'Output format for data on stdout' -r -f -a "table\t'A table of the main columns'
wide\t'A table with more columns'
json\t'One JSON document (stable schema, see the README)'
yaml\t'The JSON document as YAML'
name\t'One `runner/NAME` per line'"
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l color -d 'When to use colour (NO_COLOR disables it in auto mode) [env: NO_COLOR]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l all -d 'Required when nothing else narrows the selection'
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l dry-run -d 'Print the exact plan and change nothing'
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -s y -l yes -d 'Don\'t ask for confirmation (required when not running interactively)'
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l wait -d 'Wait for busy (and held) runners to become idle, then drain them'
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l cordon -d 'Cordon the node first (default when --node is given)'
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l no-cordon -d 'Don\'t cordon the node'
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -s A -l all-namespaces -d 'Look for runner pods in all namespaces'
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l no-headers -d 'Don\'t print table headers'
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -l no-progress -d 'Never show progress bars'
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -s q -l quiet -d 'Print only data and errors'
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -s v -l verbose -d 'More detail on stderr (repeatable: -v requests, -vv responses, -vvv everything)'
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c arcctl -n "__fish_arcctl_using_subcommand drain" -s V -l version -d 'Print version'
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -s l -l selector -d 'Pod label selector (`key=value`, `key!=value`, `key in (a,b)`, `key`, `!key`)' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l node -d 'Only runner pods scheduled on this node' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l scale-set -d 'Only runners of this ARC scale set, RunnerDeployment or RunnerSet' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l label -d 'Only runners that carry this GitHub label (repeatable; all must match)' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l timeout -d 'Give up after this long (0 = no limit), e.g. `10m`. No unregister starts later than one confirm window before it, and a runner already unregistered is still confirmed and deleted (or held) after it, so it must be longer than --confirm-window' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l poll-interval -d 'How often to poll a busy runner while waiting' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l confirm-window -d 'After an unregister, how long to watch a runner that shows no proof of being idle before taking the absence of any job trace as proof (at least 2s)' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l concurrency -d 'How many reads and Kubernetes operations run at once' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l max-unregister-rate -d 'Pace of unregister (DELETE) calls to GitHub, e.g. `1/s`, `3/s`, `30/m`' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l audit-log -d 'Append one JSON line per API mutation to this file' -r -F
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l batch-size -d 'Runners replaced per batch: a count or a percentage of the selection (`25%`)' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l ready-timeout -d 'Give up on a replacement after this long' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l org -d 'Organization whose runners to use [env: ARCCTL_ORG]' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l repo -d 'Repository (OWNER/REPO) whose runners to use [env: ARCCTL_REPO]' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l enterprise -d 'Enterprise (slug) whose runners to use [env: ARCCTL_ENTERPRISE]' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l group -d 'Only runners of this runner group (name or id); uses the runner-group endpoints' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l github-url -d 'GitHub API base URL [env: GITHUB_API_URL] [default: https://api.github.com]; for GitHub Enterprise Server use https://HOST/api/v3' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l token-file -d 'Read the GitHub token from this file (GH_TOKEN and GITHUB_TOKEN take precedence)' -r -F
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l app-id -d 'GitHub App id, to authenticate as an App installation instead of with a token [env: ARCCTL_APP_ID]' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l installation-id -d 'GitHub App installation id [env: ARCCTL_INSTALLATION_ID]' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l app-key -d 'GitHub App private key, a PEM file [env: ARCCTL_APP_KEY_FILE]' -r -F
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l ca-cert -d 'Extra root certificate (PEM) to trust, e.g. for GitHub Enterprise Server [env: ARCCTL_CA_CERT]' -r -F
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l request-timeout -d 'Give up on a GitHub or Kubernetes request with no answer after this long, e.g. `10s`' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l kubeconfig -d 'Path to the kubeconfig file [env: KUBECONFIG] (default: ~/.kube/config, then in-cluster)' -r -F
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l context -d 'The kubeconfig context to use' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -s n -l namespace -d 'Namespace where runner pods live (repeatable; default: the context\'s namespace)' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -s o -l output -d 'Output format for data on stdout' -r -f -a "table\t'A table of the main columns'
wide\t'A table with more columns'
json\t'One JSON document (stable schema, see the README)'
yaml\t'The JSON document as YAML'
name\t'One `runner/NAME` per line'"
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l color -d 'When to use colour (NO_COLOR disables it in auto mode) [env: NO_COLOR]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l all -d 'Required when nothing else narrows the selection'
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l dry-run -d 'Print the exact plan and change nothing'
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -s y -l yes -d 'Don\'t ask for confirmation (required when not running interactively)'
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l wait -d 'Wait for busy (and held) runners to become idle, then drain them'
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l cordon -d 'Cordon the node first (default when --node is given)'
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l no-cordon -d 'Don\'t cordon the node'
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l wait-ready -d 'Wait for each replacement to be Running and online before the next batch (default)'
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l no-wait-ready -d 'Don\'t wait for replacements'
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -s A -l all-namespaces -d 'Look for runner pods in all namespaces'
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l no-headers -d 'Don\'t print table headers'
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -l no-progress -d 'Never show progress bars'
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -s q -l quiet -d 'Print only data and errors'
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -s v -l verbose -d 'More detail on stderr (repeatable: -v requests, -vv responses, -vvv everything)'
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c arcctl -n "__fish_arcctl_using_subcommand recreate" -s V -l version -d 'Print version'
complete -c arcctl -n "__fish_arcctl_using_subcommand sandbox" -l org -d 'Organization the simulated GitHub serves' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand sandbox" -l mode -d 'Which ARC flavour the simulated cluster runs' -r -f -a "scale-set\t'gha-runner-scale-set: AutoscalingRunnerSet, EphemeralRunnerSet, EphemeralRunner'
legacy\t'summerwind: RunnerDeployment, Runner, and RunnerSet-style StatefulSets'
mixed\t'Both, side by side'"
complete -c arcctl -n "__fish_arcctl_using_subcommand sandbox" -l runners -d 'Number of runners at start' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand sandbox" -l namespace -d 'Namespace of the runner pods' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand sandbox" -l nodes -d 'Number of nodes the pods are spread over' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand sandbox" -l busy -d 'Share of runners busy at start (0 to 1)' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand sandbox" -l job-rate -d 'New jobs per second' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand sandbox" -l job-duration -d 'How long a job runs: `DUR` or `MIN..MAX`' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand sandbox" -l latency -d 'Added to every API response' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand sandbox" -l list-cache -d 'How stale `busy` may be in runner lists (GitHub caches lists for up to ~60s)' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand sandbox" -l controller-delay -d 'Extra time the ARC-like controller takes to start each new runner pod (Pending to Running and online): slow or, with a long value, hold back replacements, e.g. to rehearse `recreate --ready-timeout`' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand sandbox" -l pending -d 'Share of new runner pods (at start and every one created later) that wait 5 to 40 s before their containers start (0 to 1): `ContainerCreating`, and for a third of them a failing image pull (`ErrImagePull`, `ImagePullBackOff`). A waiting scale-set runner is registered and listed offline; a legacy one has no registration yet; reading the runner log answers 400 "is waiting to start"' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand sandbox" -l job-lag -d 'How late a job\'s traces appear: when GitHub assigns a job (the registration is busy at once), the runner\'s `Running job: NAME` log line appears a random delay up to DUR later, and the EphemeralRunner\'s `status.jobId` (what ARC\'s listener patches in) up to 2×DUR later, each drawn from the seed' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand sandbox" -l log-noise -d 'dockerd lines per second in every runner container\'s log while a job runs, as a dind runner image writes them (`time="…" level=info msg="…"`), and one every few seconds while idle; legacy pods then run `summerwind/actions-runner-dind` (dockerd in the runner container, no docker sidecar)' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand sandbox" -l fault -d 'Inject a fault with probability P (repeatable): github-5xx, github-reset, github-timeout, github-403, github-429 (rate-limit answers, with retry-after or x-ratelimit-reset), kube-5xx, kube-timeout, unsafe-204' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand sandbox" -l secondary-limit -d 'GitHub secondary rate limit in points per minute (GET 1, DELETE 5), and at most 100 requests in flight. Over it: 403 "You have exceeded a secondary rate limit", and the client is limited: until the retry-after it was told, or for 60s when the answer had none (always for the 100-in-flight limit; see --secondary-limit-silent); every request made while limited is refused the same way. Each refusal counts as a rate-limit violation' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand sandbox" -l secondary-limit-silent -d 'Share of the points refusals of --secondary-limit answered without retry-after (seeded), as GitHub sometimes does: the client must then wait at least a minute' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand sandbox" -l forbid-namespace -d 'Answer 403 Forbidden to every request in this namespace, as RBAC would (repeatable)' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand sandbox" -l app-id -d 'Accept GitHub App JWTs for this App id' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand sandbox" -l app-public-key -d 'The App\'s public key (PEM), to verify JWTs' -r -F
complete -c arcctl -n "__fish_arcctl_using_subcommand sandbox" -l app-token-lifetime -d 'How long the installation tokens the App gets stay valid (GitHub: 1 hour); expired ones are refused with 401' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand sandbox" -l rbac -d 'Enforce the RBAC rules of the Roles and ClusterRoles in this YAML file on the Kubernetes API: anything they do not allow is answered 403' -r -F
complete -c arcctl -n "__fish_arcctl_using_subcommand sandbox" -l seed -d 'Seed of the simulation: the same seed gives the same world' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand sandbox" -l report -d 'Write the verdict as JSON to this file' -r -F
complete -c arcctl -n "__fish_arcctl_using_subcommand sandbox" -l tls -d 'Serve the GitHub API over HTTPS with a generated certificate for 127.0.0.1; its CA is written to the sandbox\'s directory and exported as ARCCTL_CA_CERT'
complete -c arcctl -n "__fish_arcctl_using_subcommand sandbox" -l demo -d 'Run the built-in demonstration: a world with job traffic, a node drained, the verdict'
complete -c arcctl -n "__fish_arcctl_using_subcommand sandbox" -l guard -d 'Start `arcctl guard serve` in-process and register it for the runner namespace (failurePolicy Fail) before the command runs, so evictions of runner pods are guarded'
complete -c arcctl -n "__fish_arcctl_using_subcommand sandbox" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c arcctl -n "__fish_arcctl_using_subcommand sandbox" -s V -l version -d 'Print version'
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and not __fish_seen_subcommand_from serve manifests help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and not __fish_seen_subcommand_from serve manifests help" -s V -l version -d 'Print version'
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and not __fish_seen_subcommand_from serve manifests help" -f -a "serve" -d 'Serve the admission webhook until SIGTERM or Ctrl-C'
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and not __fish_seen_subcommand_from serve manifests help" -f -a "manifests" -d 'Print the Kubernetes manifests that install the guard (multi-document YAML on stdout)'
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and not __fish_seen_subcommand_from serve manifests help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from serve" -l org -d 'Organization whose runners to use [env: ARCCTL_ORG]' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from serve" -l repo -d 'Repository (OWNER/REPO) whose runners to use [env: ARCCTL_REPO]' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from serve" -l enterprise -d 'Enterprise (slug) whose runners to use [env: ARCCTL_ENTERPRISE]' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from serve" -l group -d 'Only runners of this runner group (name or id); uses the runner-group endpoints' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from serve" -l github-url -d 'GitHub API base URL [env: GITHUB_API_URL] [default: https://api.github.com]; for GitHub Enterprise Server use https://HOST/api/v3' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from serve" -l token-file -d 'Read the GitHub token from this file (GH_TOKEN and GITHUB_TOKEN take precedence)' -r -F
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from serve" -l app-id -d 'GitHub App id, to authenticate as an App installation instead of with a token [env: ARCCTL_APP_ID]' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from serve" -l installation-id -d 'GitHub App installation id [env: ARCCTL_INSTALLATION_ID]' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from serve" -l app-key -d 'GitHub App private key, a PEM file [env: ARCCTL_APP_KEY_FILE]' -r -F
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from serve" -l ca-cert -d 'Extra root certificate (PEM) to trust, e.g. for GitHub Enterprise Server [env: ARCCTL_CA_CERT]' -r -F
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from serve" -l request-timeout -d 'Give up on a GitHub or Kubernetes request with no answer after this long, e.g. `10s`' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from serve" -l kubeconfig -d 'Path to the kubeconfig file [env: KUBECONFIG] (default: ~/.kube/config, then in-cluster)' -r -F
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from serve" -l context -d 'The kubeconfig context to use' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from serve" -s n -l namespace -d 'Namespace where runner pods live (repeatable; default: the context\'s namespace)' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from serve" -l listen -d 'Address to listen on (HTTPS)' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from serve" -l tls-cert -d 'The server\'s certificate chain, a PEM file' -r -F
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from serve" -l tls-key -d 'The server\'s private key, a PEM file' -r -F
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from serve" -l answer-within -d 'Answer every review within this long (keep it under the webhook\'s timeoutSeconds); a drain it started goes on in the background' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from serve" -l confirm-window -d 'After an unregister, how long to watch a runner with no proof of being idle (at least 2s)' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from serve" -l poll-interval -d 'How often a busy runner\'s drain asks GitHub whether its job has ended' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from serve" -l drain-timeout -d 'Give up on a runner\'s drain after this long (its job never ended); the next eviction starts another' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from serve" -l max-unregister-rate -d 'Pace of unregister (DELETE) calls to GitHub, shared by every eviction, e.g. `1/s`' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from serve" -s A -l all-namespaces -d 'Look for runner pods in all namespaces'
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from serve" -s v -l verbose -d 'More logs (`-v`: what arcctl decides from the answers; `-vv`: everything); every request and every review is logged without it'
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from serve" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from serve" -s V -l version -d 'Print version'
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from manifests" -l namespace -d 'Namespace the guard runs in (never guarded itself)' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from manifests" -l runner-namespace -d 'Namespace of runner pods whose evictions are guarded (repeatable)' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from manifests" -l image -d 'Container image with the arcctl binary' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from manifests" -l org -d 'Organization whose runners the guard drains' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from manifests" -l repo -d 'Repository (OWNER/REPO) whose runners the guard drains' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from manifests" -l enterprise -d 'Enterprise (slug) whose runners the guard drains' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from manifests" -l group -d 'Only runners of this runner group (name or id)' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from manifests" -l github-url -d 'GitHub API base URL (GitHub Enterprise Server: https://HOST/api/v3)' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from manifests" -l app-id -d 'GitHub App id (recommended: with --installation-id and --app-key-secret)' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from manifests" -l installation-id -d 'GitHub App installation id' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from manifests" -l app-key-secret -d 'Secret (in the guard\'s namespace) holding the App\'s private key as `private-key.pem`' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from manifests" -l token-secret -d 'Secret (in the guard\'s namespace) holding a GitHub token as `token` (instead of an App)' -r
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from manifests" -l self-signed -d 'Generate a CA and serving certificate now (Secret + caBundle) instead of cert-manager\'s'
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from manifests" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from manifests" -s V -l version -d 'Print version'
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from help" -f -a "serve" -d 'Serve the admission webhook until SIGTERM or Ctrl-C'
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from help" -f -a "manifests" -d 'Print the Kubernetes manifests that install the guard (multi-document YAML on stdout)'
complete -c arcctl -n "__fish_arcctl_using_subcommand guard; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c arcctl -n "__fish_arcctl_using_subcommand completions" -s h -l help -d 'Print help'
complete -c arcctl -n "__fish_arcctl_using_subcommand completions" -s V -l version -d 'Print version'
complete -c arcctl -n "__fish_arcctl_using_subcommand help; and not __fish_seen_subcommand_from list drain recreate sandbox guard completions help" -f -a "list" -d 'Show runners joined with their pods'
complete -c arcctl -n "__fish_arcctl_using_subcommand help; and not __fish_seen_subcommand_from list drain recreate sandbox guard completions help" -f -a "drain" -d 'Take runners out of service: unregister, confirm idle, delete'
complete -c arcctl -n "__fish_arcctl_using_subcommand help; and not __fish_seen_subcommand_from list drain recreate sandbox guard completions help" -f -a "recreate" -d 'Replace runners in rolling batches: unregister, confirm idle, delete, wait for the replacement'
complete -c arcctl -n "__fish_arcctl_using_subcommand help; and not __fish_seen_subcommand_from list drain recreate sandbox guard completions help" -f -a "sandbox" -d 'Run a simulated GitHub organization and ARC cluster with live job traffic'
complete -c arcctl -n "__fish_arcctl_using_subcommand help; and not __fish_seen_subcommand_from list drain recreate sandbox guard completions help" -f -a "guard" -d 'Guard evictions of runner pods: an admission webhook that drains a runner before its pod goes'
complete -c arcctl -n "__fish_arcctl_using_subcommand help; and not __fish_seen_subcommand_from list drain recreate sandbox guard completions help" -f -a "completions" -d 'Print a shell completion script to stdout'
complete -c arcctl -n "__fish_arcctl_using_subcommand help; and not __fish_seen_subcommand_from list drain recreate sandbox guard completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c arcctl -n "__fish_arcctl_using_subcommand help; and __fish_seen_subcommand_from guard" -f -a "serve" -d 'Serve the admission webhook until SIGTERM or Ctrl-C'
complete -c arcctl -n "__fish_arcctl_using_subcommand help; and __fish_seen_subcommand_from guard" -f -a "manifests" -d 'Print the Kubernetes manifests that install the guard (multi-document YAML on stdout)'
