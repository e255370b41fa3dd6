
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'arcctl' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'arcctl'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'arcctl' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Show runners joined with their pods')
            [CompletionResult]::new('drain', 'drain', [CompletionResultType]::ParameterValue, 'Take runners out of service: unregister, confirm idle, delete')
            [CompletionResult]::new('recreate', 'recreate', [CompletionResultType]::ParameterValue, 'Replace runners in rolling batches: unregister, confirm idle, delete, wait for the replacement')
            [CompletionResult]::new('sandbox', 'sandbox', [CompletionResultType]::ParameterValue, 'Run a simulated GitHub organization and ARC cluster with live job traffic')
            [CompletionResult]::new('guard', 'guard', [CompletionResultType]::ParameterValue, 'Guard evictions of runner pods: an admission webhook that drains a runner before its pod goes')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script to stdout')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'arcctl;list' {
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Pod label selector (`key=value`, `key!=value`, `key in (a,b)`, `key`, `!key`)')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Pod label selector (`key=value`, `key!=value`, `key in (a,b)`, `key`, `!key`)')
            [CompletionResult]::new('--node', '--node', [CompletionResultType]::ParameterName, 'Only runner pods scheduled on this node')
            [CompletionResult]::new('--scale-set', '--scale-set', [CompletionResultType]::ParameterName, 'Only runners of this ARC scale set, RunnerDeployment or RunnerSet')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'Only runners that carry this GitHub label (repeatable; all must match)')
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Only runners in this state (repeatable)')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'How many pages of GitHub''s runner list are read at once')
            [CompletionResult]::new('--org', '--org', [CompletionResultType]::ParameterName, 'Organization whose runners to use [env: ARCCTL_ORG]')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Repository (OWNER/REPO) whose runners to use [env: ARCCTL_REPO]')
            [CompletionResult]::new('--enterprise', '--enterprise', [CompletionResultType]::ParameterName, 'Enterprise (slug) whose runners to use [env: ARCCTL_ENTERPRISE]')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'Only runners of this runner group (name or id); uses the runner-group endpoints')
            [CompletionResult]::new('--github-url', '--github-url', [CompletionResultType]::ParameterName, 'GitHub API base URL [env: GITHUB_API_URL] [default: https://api.github.com]; for GitHub Enterprise Server use https://HOST/api/v3')
            [CompletionResult]::new('--token-file', '--token-file', [CompletionResultType]::ParameterName, 'Read the GitHub token from this file (GH_TOKEN and GITHUB_TOKEN take precedence)')
            [CompletionResult]::new('--app-id', '--app-id', [CompletionResultType]::ParameterName, 'GitHub App id, to authenticate as an App installation instead of with a token [env: ARCCTL_APP_ID]')
            [CompletionResult]::new('--installation-id', '--installation-id', [CompletionResultType]::ParameterName, 'GitHub App installation id [env: ARCCTL_INSTALLATION_ID]')
            [CompletionResult]::new('--app-key', '--app-key', [CompletionResultType]::ParameterName, 'GitHub App private key, a PEM file [env: ARCCTL_APP_KEY_FILE]')
            [CompletionResult]::new('--ca-cert', '--ca-cert', [CompletionResultType]::ParameterName, 'Extra root certificate (PEM) to trust, e.g. for GitHub Enterprise Server [env: ARCCTL_CA_CERT]')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Give up on a GitHub or Kubernetes request with no answer after this long, e.g. `10s`')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file [env: KUBECONFIG] (default: ~/.kube/config, then in-cluster)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace where runner pods live (repeatable; default: the context''s namespace)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace where runner pods live (repeatable; default: the context''s namespace)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR disables it in auto mode) [env: NO_COLOR]')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Look for runner pods in all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Look for runner pods in all namespaces')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Don''t print table headers')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never show progress bars')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeatable: -v requests, -vv responses, -vvv everything)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeatable: -v requests, -vv responses, -vvv everything)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'arcctl;drain' {
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Pod label selector (`key=value`, `key!=value`, `key in (a,b)`, `key`, `!key`)')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Pod label selector (`key=value`, `key!=value`, `key in (a,b)`, `key`, `!key`)')
            [CompletionResult]::new('--node', '--node', [CompletionResultType]::ParameterName, 'Only runner pods scheduled on this node')
            [CompletionResult]::new('--scale-set', '--scale-set', [CompletionResultType]::ParameterName, 'Only runners of this ARC scale set, RunnerDeployment or RunnerSet')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'Only runners that carry this GitHub label (repeatable; all must match)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Give up after this long (0 = no limit), e.g. `10m`. No unregister starts later than one confirm window before it, and a runner already unregistered is still confirmed and deleted (or held) after it, so it must be longer than --confirm-window')
            [CompletionResult]::new('--poll-interval', '--poll-interval', [CompletionResultType]::ParameterName, 'How often to poll a busy runner while waiting')
            [CompletionResult]::new('--confirm-window', '--confirm-window', [CompletionResultType]::ParameterName, 'After an unregister, how long to watch a runner that shows no proof of being idle before taking the absence of any job trace as proof (at least 2s)')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'How many reads and Kubernetes operations run at once')
            [CompletionResult]::new('--max-unregister-rate', '--max-unregister-rate', [CompletionResultType]::ParameterName, 'Pace of unregister (DELETE) calls to GitHub, e.g. `1/s`, `3/s`, `30/m`')
            [CompletionResult]::new('--audit-log', '--audit-log', [CompletionResultType]::ParameterName, 'Append one JSON line per API mutation to this file')
            [CompletionResult]::new('--org', '--org', [CompletionResultType]::ParameterName, 'Organization whose runners to use [env: ARCCTL_ORG]')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Repository (OWNER/REPO) whose runners to use [env: ARCCTL_REPO]')
            [CompletionResult]::new('--enterprise', '--enterprise', [CompletionResultType]::ParameterName, 'Enterprise (slug) whose runners to use [env: ARCCTL_ENTERPRISE]')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'Only runners of this runner group (name or id); uses the runner-group endpoints')
            [CompletionResult]::new('--github-url', '--github-url', [CompletionResultType]::ParameterName, 'GitHub API base URL [env: GITHUB_API_URL] [default: https://api.github.com]; for GitHub Enterprise Server use https://HOST/api/v3')
            [CompletionResult]::new('--token-file', '--token-file', [CompletionResultType]::ParameterName, 'Read the GitHub token from this file (GH_TOKEN and GITHUB_TOKEN take precedence)')
            [CompletionResult]::new('--app-id', '--app-id', [CompletionResultType]::ParameterName, 'GitHub App id, to authenticate as an App installation instead of with a token [env: ARCCTL_APP_ID]')
            [CompletionResult]::new('--installation-id', '--installation-id', [CompletionResultType]::ParameterName, 'GitHub App installation id [env: ARCCTL_INSTALLATION_ID]')
            [CompletionResult]::new('--app-key', '--app-key', [CompletionResultType]::ParameterName, 'GitHub App private key, a PEM file [env: ARCCTL_APP_KEY_FILE]')
            [CompletionResult]::new('--ca-cert', '--ca-cert', [CompletionResultType]::ParameterName, 'Extra root certificate (PEM) to trust, e.g. for GitHub Enterprise Server [env: ARCCTL_CA_CERT]')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Give up on a GitHub or Kubernetes request with no answer after this long, e.g. `10s`')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file [env: KUBECONFIG] (default: ~/.kube/config, then in-cluster)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace where runner pods live (repeatable; default: the context''s namespace)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace where runner pods live (repeatable; default: the context''s namespace)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR disables it in auto mode) [env: NO_COLOR]')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Required when nothing else narrows the selection')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the exact plan and change nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Don''t ask for confirmation (required when not running interactively)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Don''t ask for confirmation (required when not running interactively)')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait for busy (and held) runners to become idle, then drain them')
            [CompletionResult]::new('--cordon', '--cordon', [CompletionResultType]::ParameterName, 'Cordon the node first (default when --node is given)')
            [CompletionResult]::new('--no-cordon', '--no-cordon', [CompletionResultType]::ParameterName, 'Don''t cordon the node')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Look for runner pods in all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Look for runner pods in all namespaces')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Don''t print table headers')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never show progress bars')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeatable: -v requests, -vv responses, -vvv everything)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeatable: -v requests, -vv responses, -vvv everything)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'arcctl;recreate' {
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Pod label selector (`key=value`, `key!=value`, `key in (a,b)`, `key`, `!key`)')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Pod label selector (`key=value`, `key!=value`, `key in (a,b)`, `key`, `!key`)')
            [CompletionResult]::new('--node', '--node', [CompletionResultType]::ParameterName, 'Only runner pods scheduled on this node')
            [CompletionResult]::new('--scale-set', '--scale-set', [CompletionResultType]::ParameterName, 'Only runners of this ARC scale set, RunnerDeployment or RunnerSet')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'Only runners that carry this GitHub label (repeatable; all must match)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Give up after this long (0 = no limit), e.g. `10m`. No unregister starts later than one confirm window before it, and a runner already unregistered is still confirmed and deleted (or held) after it, so it must be longer than --confirm-window')
            [CompletionResult]::new('--poll-interval', '--poll-interval', [CompletionResultType]::ParameterName, 'How often to poll a busy runner while waiting')
            [CompletionResult]::new('--confirm-window', '--confirm-window', [CompletionResultType]::ParameterName, 'After an unregister, how long to watch a runner that shows no proof of being idle before taking the absence of any job trace as proof (at least 2s)')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'How many reads and Kubernetes operations run at once')
            [CompletionResult]::new('--max-unregister-rate', '--max-unregister-rate', [CompletionResultType]::ParameterName, 'Pace of unregister (DELETE) calls to GitHub, e.g. `1/s`, `3/s`, `30/m`')
            [CompletionResult]::new('--audit-log', '--audit-log', [CompletionResultType]::ParameterName, 'Append one JSON line per API mutation to this file')
            [CompletionResult]::new('--batch-size', '--batch-size', [CompletionResultType]::ParameterName, 'Runners replaced per batch: a count or a percentage of the selection (`25%`)')
            [CompletionResult]::new('--ready-timeout', '--ready-timeout', [CompletionResultType]::ParameterName, 'Give up on a replacement after this long')
            [CompletionResult]::new('--org', '--org', [CompletionResultType]::ParameterName, 'Organization whose runners to use [env: ARCCTL_ORG]')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Repository (OWNER/REPO) whose runners to use [env: ARCCTL_REPO]')
            [CompletionResult]::new('--enterprise', '--enterprise', [CompletionResultType]::ParameterName, 'Enterprise (slug) whose runners to use [env: ARCCTL_ENTERPRISE]')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'Only runners of this runner group (name or id); uses the runner-group endpoints')
            [CompletionResult]::new('--github-url', '--github-url', [CompletionResultType]::ParameterName, 'GitHub API base URL [env: GITHUB_API_URL] [default: https://api.github.com]; for GitHub Enterprise Server use https://HOST/api/v3')
            [CompletionResult]::new('--token-file', '--token-file', [CompletionResultType]::ParameterName, 'Read the GitHub token from this file (GH_TOKEN and GITHUB_TOKEN take precedence)')
            [CompletionResult]::new('--app-id', '--app-id', [CompletionResultType]::ParameterName, 'GitHub App id, to authenticate as an App installation instead of with a token [env: ARCCTL_APP_ID]')
            [CompletionResult]::new('--installation-id', '--installation-id', [CompletionResultType]::ParameterName, 'GitHub App installation id [env: ARCCTL_INSTALLATION_ID]')
            [CompletionResult]::new('--app-key', '--app-key', [CompletionResultType]::ParameterName, 'GitHub App private key, a PEM file [env: ARCCTL_APP_KEY_FILE]')
            [CompletionResult]::new('--ca-cert', '--ca-cert', [CompletionResultType]::ParameterName, 'Extra root certificate (PEM) to trust, e.g. for GitHub Enterprise Server [env: ARCCTL_CA_CERT]')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Give up on a GitHub or Kubernetes request with no answer after this long, e.g. `10s`')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file [env: KUBECONFIG] (default: ~/.kube/config, then in-cluster)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace where runner pods live (repeatable; default: the context''s namespace)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace where runner pods live (repeatable; default: the context''s namespace)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format for data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR disables it in auto mode) [env: NO_COLOR]')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Required when nothing else narrows the selection')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the exact plan and change nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Don''t ask for confirmation (required when not running interactively)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Don''t ask for confirmation (required when not running interactively)')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait for busy (and held) runners to become idle, then drain them')
            [CompletionResult]::new('--cordon', '--cordon', [CompletionResultType]::ParameterName, 'Cordon the node first (default when --node is given)')
            [CompletionResult]::new('--no-cordon', '--no-cordon', [CompletionResultType]::ParameterName, 'Don''t cordon the node')
            [CompletionResult]::new('--wait-ready', '--wait-ready', [CompletionResultType]::ParameterName, 'Wait for each replacement to be Running and online before the next batch (default)')
            [CompletionResult]::new('--no-wait-ready', '--no-wait-ready', [CompletionResultType]::ParameterName, 'Don''t wait for replacements')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Look for runner pods in all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Look for runner pods in all namespaces')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Don''t print table headers')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never show progress bars')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More detail on stderr (repeatable: -v requests, -vv responses, -vvv everything)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More detail on stderr (repeatable: -v requests, -vv responses, -vvv everything)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'arcctl;sandbox' {
            [CompletionResult]::new('--org', '--org', [CompletionResultType]::ParameterName, 'Organization the simulated GitHub serves')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Which ARC flavour the simulated cluster runs')
            [CompletionResult]::new('--runners', '--runners', [CompletionResultType]::ParameterName, 'Number of runners at start')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the runner pods')
            [CompletionResult]::new('--nodes', '--nodes', [CompletionResultType]::ParameterName, 'Number of nodes the pods are spread over')
            [CompletionResult]::new('--busy', '--busy', [CompletionResultType]::ParameterName, 'Share of runners busy at start (0 to 1)')
            [CompletionResult]::new('--job-rate', '--job-rate', [CompletionResultType]::ParameterName, 'New jobs per second')
            [CompletionResult]::new('--job-duration', '--job-duration', [CompletionResultType]::ParameterName, 'How long a job runs: `DUR` or `MIN..MAX`')
            [CompletionResult]::new('--latency', '--latency', [CompletionResultType]::ParameterName, 'Added to every API response')
            [CompletionResult]::new('--list-cache', '--list-cache', [CompletionResultType]::ParameterName, 'How stale `busy` may be in runner lists (GitHub caches lists for up to ~60s)')
            [CompletionResult]::new('--controller-delay', '--controller-delay', [CompletionResultType]::ParameterName, 'Extra time the ARC-like controller takes to start each new runner pod (Pending to Running and online): slow or, with a long value, hold back replacements, e.g. to rehearse `recreate --ready-timeout`')
            [CompletionResult]::new('--pending', '--pending', [CompletionResultType]::ParameterName, 'Share of new runner pods (at start and every one created later) that wait 5 to 40 s before their containers start (0 to 1): `ContainerCreating`, and for a third of them a failing image pull (`ErrImagePull`, `ImagePullBackOff`). A waiting scale-set runner is registered and listed offline; a legacy one has no registration yet; reading the runner log answers 400 "is waiting to start"')
            [CompletionResult]::new('--job-lag', '--job-lag', [CompletionResultType]::ParameterName, 'How late a job''s traces appear: when GitHub assigns a job (the registration is busy at once), the runner''s `Running job: NAME` log line appears a random delay up to DUR later, and the EphemeralRunner''s `status.jobId` (what ARC''s listener patches in) up to 2×DUR later, each drawn from the seed')
            [CompletionResult]::new('--log-noise', '--log-noise', [CompletionResultType]::ParameterName, 'dockerd lines per second in every runner container''s log while a job runs, as a dind runner image writes them (`time="…" level=info msg="…"`), and one every few seconds while idle; legacy pods then run `summerwind/actions-runner-dind` (dockerd in the runner container, no docker sidecar)')
            [CompletionResult]::new('--fault', '--fault', [CompletionResultType]::ParameterName, 'Inject a fault with probability P (repeatable): github-5xx, github-reset, github-timeout, github-403, github-429 (rate-limit answers, with retry-after or x-ratelimit-reset), kube-5xx, kube-timeout, unsafe-204')
            [CompletionResult]::new('--secondary-limit', '--secondary-limit', [CompletionResultType]::ParameterName, 'GitHub secondary rate limit in points per minute (GET 1, DELETE 5), and at most 100 requests in flight. Over it: 403 "You have exceeded a secondary rate limit", and the client is limited: until the retry-after it was told, or for 60s when the answer had none (always for the 100-in-flight limit; see --secondary-limit-silent); every request made while limited is refused the same way. Each refusal counts as a rate-limit violation')
            [CompletionResult]::new('--secondary-limit-silent', '--secondary-limit-silent', [CompletionResultType]::ParameterName, 'Share of the points refusals of --secondary-limit answered without retry-after (seeded), as GitHub sometimes does: the client must then wait at least a minute')
            [CompletionResult]::new('--forbid-namespace', '--forbid-namespace', [CompletionResultType]::ParameterName, 'Answer 403 Forbidden to every request in this namespace, as RBAC would (repeatable)')
            [CompletionResult]::new('--app-id', '--app-id', [CompletionResultType]::ParameterName, 'Accept GitHub App JWTs for this App id')
            [CompletionResult]::new('--app-public-key', '--app-public-key', [CompletionResultType]::ParameterName, 'The App''s public key (PEM), to verify JWTs')
            [CompletionResult]::new('--app-token-lifetime', '--app-token-lifetime', [CompletionResultType]::ParameterName, 'How long the installation tokens the App gets stay valid (GitHub: 1 hour); expired ones are refused with 401')
            [CompletionResult]::new('--rbac', '--rbac', [CompletionResultType]::ParameterName, 'Enforce the RBAC rules of the Roles and ClusterRoles in this YAML file on the Kubernetes API: anything they do not allow is answered 403')
            [CompletionResult]::new('--seed', '--seed', [CompletionResultType]::ParameterName, 'Seed of the simulation: the same seed gives the same world')
            [CompletionResult]::new('--report', '--report', [CompletionResultType]::ParameterName, 'Write the verdict as JSON to this file')
            [CompletionResult]::new('--tls', '--tls', [CompletionResultType]::ParameterName, 'Serve the GitHub API over HTTPS with a generated certificate for 127.0.0.1; its CA is written to the sandbox''s directory and exported as ARCCTL_CA_CERT')
            [CompletionResult]::new('--demo', '--demo', [CompletionResultType]::ParameterName, 'Run the built-in demonstration: a world with job traffic, a node drained, the verdict')
            [CompletionResult]::new('--guard', '--guard', [CompletionResultType]::ParameterName, 'Start `arcctl guard serve` in-process and register it for the runner namespace (failurePolicy Fail) before the command runs, so evictions of runner pods are guarded')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'arcctl;guard' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the admission webhook until SIGTERM or Ctrl-C')
            [CompletionResult]::new('manifests', 'manifests', [CompletionResultType]::ParameterValue, 'Print the Kubernetes manifests that install the guard (multi-document YAML on stdout)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'arcctl;guard;serve' {
            [CompletionResult]::new('--org', '--org', [CompletionResultType]::ParameterName, 'Organization whose runners to use [env: ARCCTL_ORG]')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Repository (OWNER/REPO) whose runners to use [env: ARCCTL_REPO]')
            [CompletionResult]::new('--enterprise', '--enterprise', [CompletionResultType]::ParameterName, 'Enterprise (slug) whose runners to use [env: ARCCTL_ENTERPRISE]')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'Only runners of this runner group (name or id); uses the runner-group endpoints')
            [CompletionResult]::new('--github-url', '--github-url', [CompletionResultType]::ParameterName, 'GitHub API base URL [env: GITHUB_API_URL] [default: https://api.github.com]; for GitHub Enterprise Server use https://HOST/api/v3')
            [CompletionResult]::new('--token-file', '--token-file', [CompletionResultType]::ParameterName, 'Read the GitHub token from this file (GH_TOKEN and GITHUB_TOKEN take precedence)')
            [CompletionResult]::new('--app-id', '--app-id', [CompletionResultType]::ParameterName, 'GitHub App id, to authenticate as an App installation instead of with a token [env: ARCCTL_APP_ID]')
            [CompletionResult]::new('--installation-id', '--installation-id', [CompletionResultType]::ParameterName, 'GitHub App installation id [env: ARCCTL_INSTALLATION_ID]')
            [CompletionResult]::new('--app-key', '--app-key', [CompletionResultType]::ParameterName, 'GitHub App private key, a PEM file [env: ARCCTL_APP_KEY_FILE]')
            [CompletionResult]::new('--ca-cert', '--ca-cert', [CompletionResultType]::ParameterName, 'Extra root certificate (PEM) to trust, e.g. for GitHub Enterprise Server [env: ARCCTL_CA_CERT]')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Give up on a GitHub or Kubernetes request with no answer after this long, e.g. `10s`')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file [env: KUBECONFIG] (default: ~/.kube/config, then in-cluster)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace where runner pods live (repeatable; default: the context''s namespace)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace where runner pods live (repeatable; default: the context''s namespace)')
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'Address to listen on (HTTPS)')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'The server''s certificate chain, a PEM file')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The server''s private key, a PEM file')
            [CompletionResult]::new('--answer-within', '--answer-within', [CompletionResultType]::ParameterName, 'Answer every review within this long (keep it under the webhook''s timeoutSeconds); a drain it started goes on in the background')
            [CompletionResult]::new('--confirm-window', '--confirm-window', [CompletionResultType]::ParameterName, 'After an unregister, how long to watch a runner with no proof of being idle (at least 2s)')
            [CompletionResult]::new('--poll-interval', '--poll-interval', [CompletionResultType]::ParameterName, 'How often a busy runner''s drain asks GitHub whether its job has ended')
            [CompletionResult]::new('--drain-timeout', '--drain-timeout', [CompletionResultType]::ParameterName, 'Give up on a runner''s drain after this long (its job never ended); the next eviction starts another')
            [CompletionResult]::new('--max-unregister-rate', '--max-unregister-rate', [CompletionResultType]::ParameterName, 'Pace of unregister (DELETE) calls to GitHub, shared by every eviction, e.g. `1/s`')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Look for runner pods in all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Look for runner pods in all namespaces')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logs (`-v`: what arcctl decides from the answers; `-vv`: everything); every request and every review is logged without it')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logs (`-v`: what arcctl decides from the answers; `-vv`: everything); every request and every review is logged without it')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'arcctl;guard;manifests' {
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace the guard runs in (never guarded itself)')
            [CompletionResult]::new('--runner-namespace', '--runner-namespace', [CompletionResultType]::ParameterName, 'Namespace of runner pods whose evictions are guarded (repeatable)')
            [CompletionResult]::new('--image', '--image', [CompletionResultType]::ParameterName, 'Container image with the arcctl binary')
            [CompletionResult]::new('--org', '--org', [CompletionResultType]::ParameterName, 'Organization whose runners the guard drains')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Repository (OWNER/REPO) whose runners the guard drains')
            [CompletionResult]::new('--enterprise', '--enterprise', [CompletionResultType]::ParameterName, 'Enterprise (slug) whose runners the guard drains')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'Only runners of this runner group (name or id)')
            [CompletionResult]::new('--github-url', '--github-url', [CompletionResultType]::ParameterName, 'GitHub API base URL (GitHub Enterprise Server: https://HOST/api/v3)')
            [CompletionResult]::new('--app-id', '--app-id', [CompletionResultType]::ParameterName, 'GitHub App id (recommended: with --installation-id and --app-key-secret)')
            [CompletionResult]::new('--installation-id', '--installation-id', [CompletionResultType]::ParameterName, 'GitHub App installation id')
            [CompletionResult]::new('--app-key-secret', '--app-key-secret', [CompletionResultType]::ParameterName, 'Secret (in the guard''s namespace) holding the App''s private key as `private-key.pem`')
            [CompletionResult]::new('--token-secret', '--token-secret', [CompletionResultType]::ParameterName, 'Secret (in the guard''s namespace) holding a GitHub token as `token` (instead of an App)')
            [CompletionResult]::new('--self-signed', '--self-signed', [CompletionResultType]::ParameterName, 'Generate a CA and serving certificate now (Secret + caBundle) instead of cert-manager''s')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'arcctl;guard;help' {
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the admission webhook until SIGTERM or Ctrl-C')
            [CompletionResult]::new('manifests', 'manifests', [CompletionResultType]::ParameterValue, 'Print the Kubernetes manifests that install the guard (multi-document YAML on stdout)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'arcctl;guard;help;serve' {
            break
        }
        'arcctl;guard;help;manifests' {
            break
        }
        'arcctl;guard;help;help' {
            break
        }
        'arcctl;completions' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'arcctl;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Show runners joined with their pods')
            [CompletionResult]::new('drain', 'drain', [CompletionResultType]::ParameterValue, 'Take runners out of service: unregister, confirm idle, delete')
            [CompletionResult]::new('recreate', 'recreate', [CompletionResultType]::ParameterValue, 'Replace runners in rolling batches: unregister, confirm idle, delete, wait for the replacement')
            [CompletionResult]::new('sandbox', 'sandbox', [CompletionResultType]::ParameterValue, 'Run a simulated GitHub organization and ARC cluster with live job traffic')
            [CompletionResult]::new('guard', 'guard', [CompletionResultType]::ParameterValue, 'Guard evictions of runner pods: an admission webhook that drains a runner before its pod goes')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script to stdout')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'arcctl;help;list' {
            break
        }
        'arcctl;help;drain' {
            break
        }
        'arcctl;help;recreate' {
            break
        }
        'arcctl;help;sandbox' {
            break
        }
        'arcctl;help;guard' {
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the admission webhook until SIGTERM or Ctrl-C')
            [CompletionResult]::new('manifests', 'manifests', [CompletionResultType]::ParameterValue, 'Print the Kubernetes manifests that install the guard (multi-document YAML on stdout)')
            break
        }
        'arcctl;help;guard;serve' {
            break
        }
        'arcctl;help;guard;manifests' {
            break
        }
        'arcctl;help;completions' {
            break
        }
        'arcctl;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
