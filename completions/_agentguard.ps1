
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'agentguard' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'agentguard'
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
        'agentguard' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Add agentguard''s hooks to Claude Code or Codex settings')
            [CompletionResult]::new('uninstall', 'uninstall', [CompletionResultType]::ParameterValue, 'Remove agentguard''s hooks, and nothing else (--purge: also agentguard''s own files)')
            [CompletionResult]::new('hook', 'hook', [CompletionResultType]::ParameterValue, 'Hook entry points, called by the agent host')
            [CompletionResult]::new('judge', 'judge', [CompletionResultType]::ParameterValue, 'Run the detectors on a text (file or stdin)')
            [CompletionResult]::new('redact', 'redact', [CompletionResultType]::ParameterValue, 'Replace secrets in a text with [REDACTED:<kind>]')
            [CompletionResult]::new('logs', 'logs', [CompletionResultType]::ParameterValue, 'Show, measure and replay logged decisions')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check everything a failure could hide behind')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Read and edit the configuration')
            [CompletionResult]::new('launch', 'launch', [CompletionResultType]::ParameterValue, 'Start an agent CLI as a read-only reviewer')
            [CompletionResult]::new('trust', 'trust', [CompletionResultType]::ParameterValue, 'Let a project''s .agentguard.toml loosen settings (after you reviewed it)')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print shell completions, or the man page')
            [CompletionResult]::new('self-update', 'self-update', [CompletionResultType]::ParameterValue, 'Update agentguard from its releases')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'agentguard;install' {
            [CompletionResult]::new('--host', '--host', [CompletionResultType]::ParameterName, 'Which agent host to configure')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Which settings file to edit')
            [CompletionResult]::new('--events', '--events', [CompletionResultType]::ParameterName, 'Hook events to install')
            [CompletionResult]::new('--project-dir', '--project-dir', [CompletionResultType]::ParameterName, 'Project directory for the project and local scopes (default: current directory)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the change as a unified diff and write nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentguard;uninstall' {
            [CompletionResult]::new('--host', '--host', [CompletionResultType]::ParameterName, 'Which agent host to configure')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Which settings file to edit')
            [CompletionResult]::new('--events', '--events', [CompletionResultType]::ParameterName, 'Hook events to install')
            [CompletionResult]::new('--project-dir', '--project-dir', [CompletionResultType]::ParameterName, 'Project directory for the project and local scopes (default: current directory)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the change as a unified diff and write nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation')
            [CompletionResult]::new('--purge', '--purge', [CompletionResultType]::ParameterName, 'Also remove agentguard''s own files: its config, state (loop guard, trust store), decision logs and the settings backups it wrote; lists them first and asks unless --yes')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentguard;hook' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('stop', 'stop', [CompletionResultType]::ParameterValue, 'Stop and SubagentStop: judge the agent''s final words')
            [CompletionResult]::new('pre-tool', 'pre-tool', [CompletionResultType]::ParameterValue, 'PreToolUse: enforce read-only roles and gate dangerous commands')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'agentguard;hook;stop' {
            [CompletionResult]::new('--host', '--host', [CompletionResultType]::ParameterName, 'The host calling the hook (decides the output protocol)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentguard;hook;pre-tool' {
            [CompletionResult]::new('--host', '--host', [CompletionResultType]::ParameterName, 'The host calling the hook (decides the output protocol)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentguard;hook;help' {
            [CompletionResult]::new('stop', 'stop', [CompletionResultType]::ParameterValue, 'Stop and SubagentStop: judge the agent''s final words')
            [CompletionResult]::new('pre-tool', 'pre-tool', [CompletionResultType]::ParameterValue, 'PreToolUse: enforce read-only roles and gate dangerous commands')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'agentguard;hook;help;stop' {
            break
        }
        'agentguard;hook;help;pre-tool' {
            break
        }
        'agentguard;hook;help;help' {
            break
        }
        'agentguard;judge' {
            [CompletionResult]::new('--transcript', '--transcript', [CompletionResultType]::ParameterName, 'Judge a stop as the hook would: the current turn''s text and tool calls from this Claude Code transcript or Codex rollout')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Only run this detector (repeatable)')
            [CompletionResult]::new('--detector', '--detector', [CompletionResultType]::ParameterName, 'Only run this detector (repeatable)')
            [CompletionResult]::new('-b', '-b', [CompletionResultType]::ParameterName, 'Judge backend (auto, rules, command, codex, claude, openai, anthropic)')
            [CompletionResult]::new('--backend', '--backend', [CompletionResultType]::ParameterName, 'Judge backend (auto, rules, command, codex, claude, openai, anthropic)')
            [CompletionResult]::new('--eval', '--eval', [CompletionResultType]::ParameterName, 'Measure the detectors on a labeled JSONL set instead (the repo''s tests/corpus/messages.jsonl, or `agentguard logs export --labeled`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON object instead of a table')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'agentguard;redact' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the counts per kind as JSON on stderr')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Exit 1 when anything was redacted')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'agentguard;logs' {
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only decisions newer than this: 2h, 3d, 45m or a date (2026-11-29)')
            [CompletionResult]::new('--detector', '--detector', [CompletionResultType]::ParameterName, 'Only this detector')
            [CompletionResult]::new('--verdict', '--verdict', [CompletionResultType]::ParameterName, 'Only this verdict (violation, allow, fail, skip, miss)')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Only this session id')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Only decisions made in this working directory')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'One JSON record per line')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Keep printing new decisions as they are logged')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'Keep printing new decisions as they are logged')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'One decision in full')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Figures per detector and per day')
            [CompletionResult]::new('replay', 'replay', [CompletionResultType]::ParameterValue, 'Re-judge logged texts with today''s config and show changed verdicts')
            [CompletionResult]::new('label', 'label', [CompletionResultType]::ParameterValue, 'Label a decision right or wrong')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write decisions as JSONL')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'agentguard;logs;show' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'json')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'agentguard;logs;stats' {
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'since')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'json')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'agentguard;logs;replay' {
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only decisions newer than this: 2h, 3d, 45m or a date (2026-11-29)')
            [CompletionResult]::new('--detector', '--detector', [CompletionResultType]::ParameterName, 'Only this detector')
            [CompletionResult]::new('--verdict', '--verdict', [CompletionResultType]::ParameterName, 'Only this verdict (violation, allow, fail, skip, miss)')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Only this session id')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Only decisions made in this working directory')
            [CompletionResult]::new('--backend', '--backend', [CompletionResultType]::ParameterName, 'Judge backend for the replay')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'json')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'agentguard;logs;label' {
            [CompletionResult]::new('--note', '--note', [CompletionResultType]::ParameterName, 'Why, in a few words (exported with the example)')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'With `wrong`: on a block, the detector(s) that were wrong to block (default: all); on an allow, the detector(s) that should have blocked (default: the one whose Layer 1 matched)')
            [CompletionResult]::new('--detector', '--detector', [CompletionResultType]::ParameterName, 'With `wrong`: on a block, the detector(s) that were wrong to block (default: all); on an allow, the detector(s) that should have blocked (default: the one whose Layer 1 matched)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'agentguard;logs;export' {
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only decisions newer than this: 2h, 3d, 45m or a date (2026-11-29)')
            [CompletionResult]::new('--detector', '--detector', [CompletionResultType]::ParameterName, 'Only this detector')
            [CompletionResult]::new('--verdict', '--verdict', [CompletionResultType]::ParameterName, 'Only this verdict (violation, allow, fail, skip, miss)')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Only this session id')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Only decisions made in this working directory')
            [CompletionResult]::new('--labeled', '--labeled', [CompletionResultType]::ParameterName, 'Only labeled decisions, in the evaluation-set format')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'agentguard;logs;help' {
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'One decision in full')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Figures per detector and per day')
            [CompletionResult]::new('replay', 'replay', [CompletionResultType]::ParameterValue, 'Re-judge logged texts with today''s config and show changed verdicts')
            [CompletionResult]::new('label', 'label', [CompletionResultType]::ParameterValue, 'Label a decision right or wrong')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write decisions as JSONL')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'agentguard;logs;help;show' {
            break
        }
        'agentguard;logs;help;stats' {
            break
        }
        'agentguard;logs;help;replay' {
            break
        }
        'agentguard;logs;help;label' {
            break
        }
        'agentguard;logs;help;export' {
            break
        }
        'agentguard;logs;help;help' {
            break
        }
        'agentguard;doctor' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable report')
            [CompletionResult]::new('--probe', '--probe', [CompletionResultType]::ParameterName, 'Send a tiny known text through the configured judge backend')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'agentguard;config' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the path of every config file, and whether it exists')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the effective configuration (defaults, user, project, env merged)')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Write a commented default config to the user config file')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Print one value by dotted key (judge.backend)')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Set one value in the user config file, keeping comments and layout')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'agentguard;config;path' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'agentguard;config;show' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'json')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'agentguard;config;init' {
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Overwrite an existing file')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'agentguard;config;get' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'agentguard;config;set' {
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Edit the project''s .agentguard.toml instead')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'agentguard;config;help' {
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the path of every config file, and whether it exists')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the effective configuration (defaults, user, project, env merged)')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Write a commented default config to the user config file')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Print one value by dotted key (judge.backend)')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Set one value in the user config file, keeping comments and layout')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'agentguard;config;help;path' {
            break
        }
        'agentguard;config;help;show' {
            break
        }
        'agentguard;config;help;init' {
            break
        }
        'agentguard;config;help;get' {
            break
        }
        'agentguard;config;help;set' {
            break
        }
        'agentguard;config;help;help' {
            break
        }
        'agentguard;launch' {
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Start the CLI so that it cannot write')
            [CompletionResult]::new('--print', '--print', [CompletionResultType]::ParameterName, 'Print the argv instead of running it')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the argv and environment as JSON instead of running it')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'agentguard;trust' {
            [CompletionResult]::new('--list', '--list', [CompletionResultType]::ParameterName, 'List the trusted files and whether each is still trusted as it is now')
            [CompletionResult]::new('--revoke', '--revoke', [CompletionResultType]::ParameterName, 'Forget the trust of the file (it applies only where it tightens again)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Trust without asking (for scripts): review the file first')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Trust without asking (for scripts): review the file first')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable output (with --list)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'agentguard;completions' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentguard;self-update' {
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Only say whether a newer release exists (exit 1 if one does, 0 if up to date)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'agentguard;help' {
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Add agentguard''s hooks to Claude Code or Codex settings')
            [CompletionResult]::new('uninstall', 'uninstall', [CompletionResultType]::ParameterValue, 'Remove agentguard''s hooks, and nothing else (--purge: also agentguard''s own files)')
            [CompletionResult]::new('hook', 'hook', [CompletionResultType]::ParameterValue, 'Hook entry points, called by the agent host')
            [CompletionResult]::new('judge', 'judge', [CompletionResultType]::ParameterValue, 'Run the detectors on a text (file or stdin)')
            [CompletionResult]::new('redact', 'redact', [CompletionResultType]::ParameterValue, 'Replace secrets in a text with [REDACTED:<kind>]')
            [CompletionResult]::new('logs', 'logs', [CompletionResultType]::ParameterValue, 'Show, measure and replay logged decisions')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check everything a failure could hide behind')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Read and edit the configuration')
            [CompletionResult]::new('launch', 'launch', [CompletionResultType]::ParameterValue, 'Start an agent CLI as a read-only reviewer')
            [CompletionResult]::new('trust', 'trust', [CompletionResultType]::ParameterValue, 'Let a project''s .agentguard.toml loosen settings (after you reviewed it)')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print shell completions, or the man page')
            [CompletionResult]::new('self-update', 'self-update', [CompletionResultType]::ParameterValue, 'Update agentguard from its releases')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'agentguard;help;install' {
            break
        }
        'agentguard;help;uninstall' {
            break
        }
        'agentguard;help;hook' {
            [CompletionResult]::new('stop', 'stop', [CompletionResultType]::ParameterValue, 'Stop and SubagentStop: judge the agent''s final words')
            [CompletionResult]::new('pre-tool', 'pre-tool', [CompletionResultType]::ParameterValue, 'PreToolUse: enforce read-only roles and gate dangerous commands')
            break
        }
        'agentguard;help;hook;stop' {
            break
        }
        'agentguard;help;hook;pre-tool' {
            break
        }
        'agentguard;help;judge' {
            break
        }
        'agentguard;help;redact' {
            break
        }
        'agentguard;help;logs' {
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'One decision in full')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Figures per detector and per day')
            [CompletionResult]::new('replay', 'replay', [CompletionResultType]::ParameterValue, 'Re-judge logged texts with today''s config and show changed verdicts')
            [CompletionResult]::new('label', 'label', [CompletionResultType]::ParameterValue, 'Label a decision right or wrong')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write decisions as JSONL')
            break
        }
        'agentguard;help;logs;show' {
            break
        }
        'agentguard;help;logs;stats' {
            break
        }
        'agentguard;help;logs;replay' {
            break
        }
        'agentguard;help;logs;label' {
            break
        }
        'agentguard;help;logs;export' {
            break
        }
        'agentguard;help;doctor' {
            break
        }
        'agentguard;help;config' {
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the path of every config file, and whether it exists')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the effective configuration (defaults, user, project, env merged)')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Write a commented default config to the user config file')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Print one value by dotted key (judge.backend)')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Set one value in the user config file, keeping comments and layout')
            break
        }
        'agentguard;help;config;path' {
            break
        }
        'agentguard;help;config;show' {
            break
        }
        'agentguard;help;config;init' {
            break
        }
        'agentguard;help;config;get' {
            break
        }
        'agentguard;help;config;set' {
            break
        }
        'agentguard;help;launch' {
            break
        }
        'agentguard;help;trust' {
            break
        }
        'agentguard;help;completions' {
            break
        }
        'agentguard;help;self-update' {
            break
        }
        'agentguard;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
