
use builtin;
use str;

set edit:completion:arg-completer[arcctl] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'arcctl'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'arcctl'= {
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand list 'Show runners joined with their pods'
            cand drain 'Take runners out of service: unregister, confirm idle, delete'
            cand recreate 'Replace runners in rolling batches: unregister, confirm idle, delete, wait for the replacement'
            cand sandbox 'Run a simulated GitHub organization and ARC cluster with live job traffic'
            cand guard 'Guard evictions of runner pods: an admission webhook that drains a runner before its pod goes'
            cand completions 'Print a shell completion script to stdout'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'arcctl;list'= {
            cand -l 'Pod label selector (`key=value`, `key!=value`, `key in (a,b)`, `key`, `!key`)'
            cand --selector 'Pod label selector (`key=value`, `key!=value`, `key in (a,b)`, `key`, `!key`)'
            cand --node 'Only runner pods scheduled on this node'
            cand --scale-set 'Only runners of this ARC scale set, RunnerDeployment or RunnerSet'
            cand --label 'Only runners that carry this GitHub label (repeatable; all must match)'
            cand --state 'Only runners in this state (repeatable)'
            cand --concurrency 'How many pages of GitHub''s runner list are read at once'
            cand --org 'Organization whose runners to use [env: ARCCTL_ORG]'
            cand --repo 'Repository (OWNER/REPO) whose runners to use [env: ARCCTL_REPO]'
            cand --enterprise 'Enterprise (slug) whose runners to use [env: ARCCTL_ENTERPRISE]'
            cand --group 'Only runners of this runner group (name or id); uses the runner-group endpoints'
            cand --github-url 'GitHub API base URL [env: GITHUB_API_URL] [default: https://api.github.com]; for GitHub Enterprise Server use https://HOST/api/v3'
            cand --token-file 'Read the GitHub token from this file (GH_TOKEN and GITHUB_TOKEN take precedence)'
            cand --app-id 'GitHub App id, to authenticate as an App installation instead of with a token [env: ARCCTL_APP_ID]'
            cand --installation-id 'GitHub App installation id [env: ARCCTL_INSTALLATION_ID]'
            cand --app-key 'GitHub App private key, a PEM file [env: ARCCTL_APP_KEY_FILE]'
            cand --ca-cert 'Extra root certificate (PEM) to trust, e.g. for GitHub Enterprise Server [env: ARCCTL_CA_CERT]'
            cand --request-timeout 'Give up on a GitHub or Kubernetes request with no answer after this long, e.g. `10s`'
            cand --kubeconfig 'Path to the kubeconfig file [env: KUBECONFIG] (default: ~/.kube/config, then in-cluster)'
            cand --context 'The kubeconfig context to use'
            cand -n 'Namespace where runner pods live (repeatable; default: the context''s namespace)'
            cand --namespace 'Namespace where runner pods live (repeatable; default: the context''s namespace)'
            cand -o 'Output format for data on stdout'
            cand --output 'Output format for data on stdout'
            cand --color 'When to use colour (NO_COLOR disables it in auto mode) [env: NO_COLOR]'
            cand -A 'Look for runner pods in all namespaces'
            cand --all-namespaces 'Look for runner pods in all namespaces'
            cand --no-headers 'Don''t print table headers'
            cand --no-progress 'Never show progress bars'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'More detail on stderr (repeatable: -v requests, -vv responses, -vvv everything)'
            cand --verbose 'More detail on stderr (repeatable: -v requests, -vv responses, -vvv everything)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'arcctl;drain'= {
            cand -l 'Pod label selector (`key=value`, `key!=value`, `key in (a,b)`, `key`, `!key`)'
            cand --selector 'Pod label selector (`key=value`, `key!=value`, `key in (a,b)`, `key`, `!key`)'
            cand --node 'Only runner pods scheduled on this node'
            cand --scale-set 'Only runners of this ARC scale set, RunnerDeployment or RunnerSet'
            cand --label 'Only runners that carry this GitHub label (repeatable; all must match)'
            cand --timeout 'Give up after this long (0 = no limit), e.g. `10m`. No unregister starts later than one confirm window before it, and a runner already unregistered is still confirmed and deleted (or held) after it, so it must be longer than --confirm-window'
            cand --poll-interval 'How often to poll a busy runner while waiting'
            cand --confirm-window 'After an unregister, how long to watch a runner that shows no proof of being idle before taking the absence of any job trace as proof (at least 2s)'
            cand --concurrency 'How many reads and Kubernetes operations run at once'
            cand --max-unregister-rate 'Pace of unregister (DELETE) calls to GitHub, e.g. `1/s`, `3/s`, `30/m`'
            cand --audit-log 'Append one JSON line per API mutation to this file'
            cand --org 'Organization whose runners to use [env: ARCCTL_ORG]'
            cand --repo 'Repository (OWNER/REPO) whose runners to use [env: ARCCTL_REPO]'
            cand --enterprise 'Enterprise (slug) whose runners to use [env: ARCCTL_ENTERPRISE]'
            cand --group 'Only runners of this runner group (name or id); uses the runner-group endpoints'
            cand --github-url 'GitHub API base URL [env: GITHUB_API_URL] [default: https://api.github.com]; for GitHub Enterprise Server use https://HOST/api/v3'
            cand --token-file 'Read the GitHub token from this file (GH_TOKEN and GITHUB_TOKEN take precedence)'
            cand --app-id 'GitHub App id, to authenticate as an App installation instead of with a token [env: ARCCTL_APP_ID]'
            cand --installation-id 'GitHub App installation id [env: ARCCTL_INSTALLATION_ID]'
            cand --app-key 'GitHub App private key, a PEM file [env: ARCCTL_APP_KEY_FILE]'
            cand --ca-cert 'Extra root certificate (PEM) to trust, e.g. for GitHub Enterprise Server [env: ARCCTL_CA_CERT]'
            cand --request-timeout 'Give up on a GitHub or Kubernetes request with no answer after this long, e.g. `10s`'
            cand --kubeconfig 'Path to the kubeconfig file [env: KUBECONFIG] (default: ~/.kube/config, then in-cluster)'
            cand --context 'The kubeconfig context to use'
            cand -n 'Namespace where runner pods live (repeatable; default: the context''s namespace)'
            cand --namespace 'Namespace where runner pods live (repeatable; default: the context''s namespace)'
            cand -o 'Output format for data on stdout'
            cand --output 'Output format for data on stdout'
            cand --color 'When to use colour (NO_COLOR disables it in auto mode) [env: NO_COLOR]'
            cand --all 'Required when nothing else narrows the selection'
            cand --dry-run 'Print the exact plan and change nothing'
            cand -y 'Don''t ask for confirmation (required when not running interactively)'
            cand --yes 'Don''t ask for confirmation (required when not running interactively)'
            cand --wait 'Wait for busy (and held) runners to become idle, then drain them'
            cand --cordon 'Cordon the node first (default when --node is given)'
            cand --no-cordon 'Don''t cordon the node'
            cand -A 'Look for runner pods in all namespaces'
            cand --all-namespaces 'Look for runner pods in all namespaces'
            cand --no-headers 'Don''t print table headers'
            cand --no-progress 'Never show progress bars'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'More detail on stderr (repeatable: -v requests, -vv responses, -vvv everything)'
            cand --verbose 'More detail on stderr (repeatable: -v requests, -vv responses, -vvv everything)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'arcctl;recreate'= {
            cand -l 'Pod label selector (`key=value`, `key!=value`, `key in (a,b)`, `key`, `!key`)'
            cand --selector 'Pod label selector (`key=value`, `key!=value`, `key in (a,b)`, `key`, `!key`)'
            cand --node 'Only runner pods scheduled on this node'
            cand --scale-set 'Only runners of this ARC scale set, RunnerDeployment or RunnerSet'
            cand --label 'Only runners that carry this GitHub label (repeatable; all must match)'
            cand --timeout 'Give up after this long (0 = no limit), e.g. `10m`. No unregister starts later than one confirm window before it, and a runner already unregistered is still confirmed and deleted (or held) after it, so it must be longer than --confirm-window'
            cand --poll-interval 'How often to poll a busy runner while waiting'
            cand --confirm-window 'After an unregister, how long to watch a runner that shows no proof of being idle before taking the absence of any job trace as proof (at least 2s)'
            cand --concurrency 'How many reads and Kubernetes operations run at once'
            cand --max-unregister-rate 'Pace of unregister (DELETE) calls to GitHub, e.g. `1/s`, `3/s`, `30/m`'
            cand --audit-log 'Append one JSON line per API mutation to this file'
            cand --batch-size 'Runners replaced per batch: a count or a percentage of the selection (`25%`)'
            cand --ready-timeout 'Give up on a replacement after this long'
            cand --org 'Organization whose runners to use [env: ARCCTL_ORG]'
            cand --repo 'Repository (OWNER/REPO) whose runners to use [env: ARCCTL_REPO]'
            cand --enterprise 'Enterprise (slug) whose runners to use [env: ARCCTL_ENTERPRISE]'
            cand --group 'Only runners of this runner group (name or id); uses the runner-group endpoints'
            cand --github-url 'GitHub API base URL [env: GITHUB_API_URL] [default: https://api.github.com]; for GitHub Enterprise Server use https://HOST/api/v3'
            cand --token-file 'Read the GitHub token from this file (GH_TOKEN and GITHUB_TOKEN take precedence)'
            cand --app-id 'GitHub App id, to authenticate as an App installation instead of with a token [env: ARCCTL_APP_ID]'
            cand --installation-id 'GitHub App installation id [env: ARCCTL_INSTALLATION_ID]'
            cand --app-key 'GitHub App private key, a PEM file [env: ARCCTL_APP_KEY_FILE]'
            cand --ca-cert 'Extra root certificate (PEM) to trust, e.g. for GitHub Enterprise Server [env: ARCCTL_CA_CERT]'
            cand --request-timeout 'Give up on a GitHub or Kubernetes request with no answer after this long, e.g. `10s`'
            cand --kubeconfig 'Path to the kubeconfig file [env: KUBECONFIG] (default: ~/.kube/config, then in-cluster)'
            cand --context 'The kubeconfig context to use'
            cand -n 'Namespace where runner pods live (repeatable; default: the context''s namespace)'
            cand --namespace 'Namespace where runner pods live (repeatable; default: the context''s namespace)'
            cand -o 'Output format for data on stdout'
            cand --output 'Output format for data on stdout'
            cand --color 'When to use colour (NO_COLOR disables it in auto mode) [env: NO_COLOR]'
            cand --all 'Required when nothing else narrows the selection'
            cand --dry-run 'Print the exact plan and change nothing'
            cand -y 'Don''t ask for confirmation (required when not running interactively)'
            cand --yes 'Don''t ask for confirmation (required when not running interactively)'
            cand --wait 'Wait for busy (and held) runners to become idle, then drain them'
            cand --cordon 'Cordon the node first (default when --node is given)'
            cand --no-cordon 'Don''t cordon the node'
            cand --wait-ready 'Wait for each replacement to be Running and online before the next batch (default)'
            cand --no-wait-ready 'Don''t wait for replacements'
            cand -A 'Look for runner pods in all namespaces'
            cand --all-namespaces 'Look for runner pods in all namespaces'
            cand --no-headers 'Don''t print table headers'
            cand --no-progress 'Never show progress bars'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'More detail on stderr (repeatable: -v requests, -vv responses, -vvv everything)'
            cand --verbose 'More detail on stderr (repeatable: -v requests, -vv responses, -vvv everything)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'arcctl;sandbox'= {
            cand --org 'Organization the simulated GitHub serves'
            cand --mode 'Which ARC flavour the simulated cluster runs'
            cand --runners 'Number of runners at start'
            cand --namespace 'Namespace of the runner pods'
            cand --nodes 'Number of nodes the pods are spread over'
            cand --busy 'Share of runners busy at start (0 to 1)'
            cand --job-rate 'New jobs per second'
            cand --job-duration 'How long a job runs: `DUR` or `MIN..MAX`'
            cand --latency 'Added to every API response'
            cand --list-cache 'How stale `busy` may be in runner lists (GitHub caches lists for up to ~60s)'
            cand --controller-delay 'Extra time the ARC-like controller takes to start each new runner pod (Pending to Running and online): slow or, with a long value, hold back replacements, e.g. to rehearse `recreate --ready-timeout`'
            cand --pending 'Share of new runner pods (at start and every one created later) that wait 5 to 40 s before their containers start (0 to 1): `ContainerCreating`, and for a third of them a failing image pull (`ErrImagePull`, `ImagePullBackOff`). A waiting scale-set runner is registered and listed offline; a legacy one has no registration yet; reading the runner log answers 400 "is waiting to start"'
            cand --job-lag 'How late a job''s traces appear: when GitHub assigns a job (the registration is busy at once), the runner''s `Running job: NAME` log line appears a random delay up to DUR later, and the EphemeralRunner''s `status.jobId` (what ARC''s listener patches in) up to 2×DUR later, each drawn from the seed'
            cand --log-noise 'dockerd lines per second in every runner container''s log while a job runs, as a dind runner image writes them (`time="…" level=info msg="…"`), and one every few seconds while idle; legacy pods then run `summerwind/actions-runner-dind` (dockerd in the runner container, no docker sidecar)'
            cand --fault 'Inject a fault with probability P (repeatable): github-5xx, github-reset, github-timeout, github-403, github-429 (rate-limit answers, with retry-after or x-ratelimit-reset), kube-5xx, kube-timeout, unsafe-204'
            cand --secondary-limit 'GitHub secondary rate limit in points per minute (GET 1, DELETE 5), and at most 100 requests in flight. Over it: 403 "You have exceeded a secondary rate limit", and the client is limited: until the retry-after it was told, or for 60s when the answer had none (always for the 100-in-flight limit; see --secondary-limit-silent); every request made while limited is refused the same way. Each refusal counts as a rate-limit violation'
            cand --secondary-limit-silent 'Share of the points refusals of --secondary-limit answered without retry-after (seeded), as GitHub sometimes does: the client must then wait at least a minute'
            cand --forbid-namespace 'Answer 403 Forbidden to every request in this namespace, as RBAC would (repeatable)'
            cand --app-id 'Accept GitHub App JWTs for this App id'
            cand --app-public-key 'The App''s public key (PEM), to verify JWTs'
            cand --app-token-lifetime 'How long the installation tokens the App gets stay valid (GitHub: 1 hour); expired ones are refused with 401'
            cand --rbac 'Enforce the RBAC rules of the Roles and ClusterRoles in this YAML file on the Kubernetes API: anything they do not allow is answered 403'
            cand --seed 'Seed of the simulation: the same seed gives the same world'
            cand --report 'Write the verdict as JSON to this file'
            cand --tls 'Serve the GitHub API over HTTPS with a generated certificate for 127.0.0.1; its CA is written to the sandbox''s directory and exported as ARCCTL_CA_CERT'
            cand --demo 'Run the built-in demonstration: a world with job traffic, a node drained, the verdict'
            cand --guard 'Start `arcctl guard serve` in-process and register it for the runner namespace (failurePolicy Fail) before the command runs, so evictions of runner pods are guarded'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'arcctl;guard'= {
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand serve 'Serve the admission webhook until SIGTERM or Ctrl-C'
            cand manifests 'Print the Kubernetes manifests that install the guard (multi-document YAML on stdout)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'arcctl;guard;serve'= {
            cand --org 'Organization whose runners to use [env: ARCCTL_ORG]'
            cand --repo 'Repository (OWNER/REPO) whose runners to use [env: ARCCTL_REPO]'
            cand --enterprise 'Enterprise (slug) whose runners to use [env: ARCCTL_ENTERPRISE]'
            cand --group 'Only runners of this runner group (name or id); uses the runner-group endpoints'
            cand --github-url 'GitHub API base URL [env: GITHUB_API_URL] [default: https://api.github.com]; for GitHub Enterprise Server use https://HOST/api/v3'
            cand --token-file 'Read the GitHub token from this file (GH_TOKEN and GITHUB_TOKEN take precedence)'
            cand --app-id 'GitHub App id, to authenticate as an App installation instead of with a token [env: ARCCTL_APP_ID]'
            cand --installation-id 'GitHub App installation id [env: ARCCTL_INSTALLATION_ID]'
            cand --app-key 'GitHub App private key, a PEM file [env: ARCCTL_APP_KEY_FILE]'
            cand --ca-cert 'Extra root certificate (PEM) to trust, e.g. for GitHub Enterprise Server [env: ARCCTL_CA_CERT]'
            cand --request-timeout 'Give up on a GitHub or Kubernetes request with no answer after this long, e.g. `10s`'
            cand --kubeconfig 'Path to the kubeconfig file [env: KUBECONFIG] (default: ~/.kube/config, then in-cluster)'
            cand --context 'The kubeconfig context to use'
            cand -n 'Namespace where runner pods live (repeatable; default: the context''s namespace)'
            cand --namespace 'Namespace where runner pods live (repeatable; default: the context''s namespace)'
            cand --listen 'Address to listen on (HTTPS)'
            cand --tls-cert 'The server''s certificate chain, a PEM file'
            cand --tls-key 'The server''s private key, a PEM file'
            cand --answer-within 'Answer every review within this long (keep it under the webhook''s timeoutSeconds); a drain it started goes on in the background'
            cand --confirm-window 'After an unregister, how long to watch a runner with no proof of being idle (at least 2s)'
            cand --poll-interval 'How often a busy runner''s drain asks GitHub whether its job has ended'
            cand --drain-timeout 'Give up on a runner''s drain after this long (its job never ended); the next eviction starts another'
            cand --max-unregister-rate 'Pace of unregister (DELETE) calls to GitHub, shared by every eviction, e.g. `1/s`'
            cand -A 'Look for runner pods in all namespaces'
            cand --all-namespaces 'Look for runner pods in all namespaces'
            cand -v 'More logs (`-v`: what arcctl decides from the answers; `-vv`: everything); every request and every review is logged without it'
            cand --verbose 'More logs (`-v`: what arcctl decides from the answers; `-vv`: everything); every request and every review is logged without it'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'arcctl;guard;manifests'= {
            cand --namespace 'Namespace the guard runs in (never guarded itself)'
            cand --runner-namespace 'Namespace of runner pods whose evictions are guarded (repeatable)'
            cand --image 'Container image with the arcctl binary'
            cand --org 'Organization whose runners the guard drains'
            cand --repo 'Repository (OWNER/REPO) whose runners the guard drains'
            cand --enterprise 'Enterprise (slug) whose runners the guard drains'
            cand --group 'Only runners of this runner group (name or id)'
            cand --github-url 'GitHub API base URL (GitHub Enterprise Server: https://HOST/api/v3)'
            cand --app-id 'GitHub App id (recommended: with --installation-id and --app-key-secret)'
            cand --installation-id 'GitHub App installation id'
            cand --app-key-secret 'Secret (in the guard''s namespace) holding the App''s private key as `private-key.pem`'
            cand --token-secret 'Secret (in the guard''s namespace) holding a GitHub token as `token` (instead of an App)'
            cand --self-signed 'Generate a CA and serving certificate now (Secret + caBundle) instead of cert-manager''s'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'arcctl;guard;help'= {
            cand serve 'Serve the admission webhook until SIGTERM or Ctrl-C'
            cand manifests 'Print the Kubernetes manifests that install the guard (multi-document YAML on stdout)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'arcctl;guard;help;serve'= {
        }
        &'arcctl;guard;help;manifests'= {
        }
        &'arcctl;guard;help;help'= {
        }
        &'arcctl;completions'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'arcctl;help'= {
            cand list 'Show runners joined with their pods'
            cand drain 'Take runners out of service: unregister, confirm idle, delete'
            cand recreate 'Replace runners in rolling batches: unregister, confirm idle, delete, wait for the replacement'
            cand sandbox 'Run a simulated GitHub organization and ARC cluster with live job traffic'
            cand guard 'Guard evictions of runner pods: an admission webhook that drains a runner before its pod goes'
            cand completions 'Print a shell completion script to stdout'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'arcctl;help;list'= {
        }
        &'arcctl;help;drain'= {
        }
        &'arcctl;help;recreate'= {
        }
        &'arcctl;help;sandbox'= {
        }
        &'arcctl;help;guard'= {
            cand serve 'Serve the admission webhook until SIGTERM or Ctrl-C'
            cand manifests 'Print the Kubernetes manifests that install the guard (multi-document YAML on stdout)'
        }
        &'arcctl;help;guard;serve'= {
        }
        &'arcctl;help;guard;manifests'= {
        }
        &'arcctl;help;completions'= {
        }
        &'arcctl;help;help'= {
        }
    ]
    $completions[$command]
}
