
use builtin;
use str;

set edit:completion:arg-completer[agentguard] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'agentguard'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'agentguard'= {
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand install 'Add agentguard''s hooks to Claude Code or Codex settings'
            cand uninstall 'Remove agentguard''s hooks, and nothing else (--purge: also agentguard''s own files)'
            cand hook 'Hook entry points, called by the agent host'
            cand judge 'Run the detectors on a text (file or stdin)'
            cand redact 'Replace secrets in a text with [REDACTED:<kind>]'
            cand logs 'Show, measure and replay logged decisions'
            cand doctor 'Check everything a failure could hide behind'
            cand config 'Read and edit the configuration'
            cand launch 'Start an agent CLI as a read-only reviewer'
            cand trust 'Let a project''s .agentguard.toml loosen settings (after you reviewed it)'
            cand completions 'Print shell completions, or the man page'
            cand self-update 'Update agentguard from its releases'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'agentguard;install'= {
            cand --host 'Which agent host to configure'
            cand --scope 'Which settings file to edit'
            cand --events 'Hook events to install'
            cand --project-dir 'Project directory for the project and local scopes (default: current directory)'
            cand --dry-run 'Print the change as a unified diff and write nothing'
            cand -y 'Do not ask for confirmation'
            cand --yes 'Do not ask for confirmation'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'agentguard;uninstall'= {
            cand --host 'Which agent host to configure'
            cand --scope 'Which settings file to edit'
            cand --events 'Hook events to install'
            cand --project-dir 'Project directory for the project and local scopes (default: current directory)'
            cand --dry-run 'Print the change as a unified diff and write nothing'
            cand -y 'Do not ask for confirmation'
            cand --yes 'Do not ask for confirmation'
            cand --purge 'Also remove agentguard''s own files: its config, state (loop guard, trust store), decision logs and the settings backups it wrote; lists them first and asks unless --yes'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'agentguard;hook'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand stop 'Stop and SubagentStop: judge the agent''s final words'
            cand pre-tool 'PreToolUse: enforce read-only roles and gate dangerous commands'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'agentguard;hook;stop'= {
            cand --host 'The host calling the hook (decides the output protocol)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'agentguard;hook;pre-tool'= {
            cand --host 'The host calling the hook (decides the output protocol)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'agentguard;hook;help'= {
            cand stop 'Stop and SubagentStop: judge the agent''s final words'
            cand pre-tool 'PreToolUse: enforce read-only roles and gate dangerous commands'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'agentguard;hook;help;stop'= {
        }
        &'agentguard;hook;help;pre-tool'= {
        }
        &'agentguard;hook;help;help'= {
        }
        &'agentguard;judge'= {
            cand --transcript 'Judge a stop as the hook would: the current turn''s text and tool calls from this Claude Code transcript or Codex rollout'
            cand -d 'Only run this detector (repeatable)'
            cand --detector 'Only run this detector (repeatable)'
            cand -b 'Judge backend (auto, rules, command, codex, claude, openai, anthropic)'
            cand --backend 'Judge backend (auto, rules, command, codex, claude, openai, anthropic)'
            cand --eval 'Measure the detectors on a labeled JSONL set instead (the repo''s tests/corpus/messages.jsonl, or `agentguard logs export --labeled`)'
            cand --json 'Print one JSON object instead of a table'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'agentguard;redact'= {
            cand --json 'Print the counts per kind as JSON on stderr'
            cand --check 'Exit 1 when anything was redacted'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'agentguard;logs'= {
            cand --since 'Only decisions newer than this: 2h, 3d, 45m or a date (2026-11-29)'
            cand --detector 'Only this detector'
            cand --verdict 'Only this verdict (violation, allow, fail, skip, miss)'
            cand --session 'Only this session id'
            cand --cwd 'Only decisions made in this working directory'
            cand --json 'One JSON record per line'
            cand -f 'Keep printing new decisions as they are logged'
            cand --follow 'Keep printing new decisions as they are logged'
            cand -h 'Print help'
            cand --help 'Print help'
            cand show 'One decision in full'
            cand stats 'Figures per detector and per day'
            cand replay 'Re-judge logged texts with today''s config and show changed verdicts'
            cand label 'Label a decision right or wrong'
            cand export 'Write decisions as JSONL'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'agentguard;logs;show'= {
            cand --json 'json'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'agentguard;logs;stats'= {
            cand --since 'since'
            cand --json 'json'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'agentguard;logs;replay'= {
            cand --since 'Only decisions newer than this: 2h, 3d, 45m or a date (2026-11-29)'
            cand --detector 'Only this detector'
            cand --verdict 'Only this verdict (violation, allow, fail, skip, miss)'
            cand --session 'Only this session id'
            cand --cwd 'Only decisions made in this working directory'
            cand --backend 'Judge backend for the replay'
            cand --json 'json'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'agentguard;logs;label'= {
            cand --note 'Why, in a few words (exported with the example)'
            cand -d 'With `wrong`: on a block, the detector(s) that were wrong to block (default: all); on an allow, the detector(s) that should have blocked (default: the one whose Layer 1 matched)'
            cand --detector 'With `wrong`: on a block, the detector(s) that were wrong to block (default: all); on an allow, the detector(s) that should have blocked (default: the one whose Layer 1 matched)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'agentguard;logs;export'= {
            cand --since 'Only decisions newer than this: 2h, 3d, 45m or a date (2026-11-29)'
            cand --detector 'Only this detector'
            cand --verdict 'Only this verdict (violation, allow, fail, skip, miss)'
            cand --session 'Only this session id'
            cand --cwd 'Only decisions made in this working directory'
            cand --labeled 'Only labeled decisions, in the evaluation-set format'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'agentguard;logs;help'= {
            cand show 'One decision in full'
            cand stats 'Figures per detector and per day'
            cand replay 'Re-judge logged texts with today''s config and show changed verdicts'
            cand label 'Label a decision right or wrong'
            cand export 'Write decisions as JSONL'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'agentguard;logs;help;show'= {
        }
        &'agentguard;logs;help;stats'= {
        }
        &'agentguard;logs;help;replay'= {
        }
        &'agentguard;logs;help;label'= {
        }
        &'agentguard;logs;help;export'= {
        }
        &'agentguard;logs;help;help'= {
        }
        &'agentguard;doctor'= {
            cand --json 'Machine-readable report'
            cand --probe 'Send a tiny known text through the configured judge backend'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'agentguard;config'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand path 'Print the path of every config file, and whether it exists'
            cand show 'Print the effective configuration (defaults, user, project, env merged)'
            cand init 'Write a commented default config to the user config file'
            cand get 'Print one value by dotted key (judge.backend)'
            cand set 'Set one value in the user config file, keeping comments and layout'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'agentguard;config;path'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'agentguard;config;show'= {
            cand --json 'json'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'agentguard;config;init'= {
            cand --force 'Overwrite an existing file'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'agentguard;config;get'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'agentguard;config;set'= {
            cand --project 'Edit the project''s .agentguard.toml instead'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'agentguard;config;help'= {
            cand path 'Print the path of every config file, and whether it exists'
            cand show 'Print the effective configuration (defaults, user, project, env merged)'
            cand init 'Write a commented default config to the user config file'
            cand get 'Print one value by dotted key (judge.backend)'
            cand set 'Set one value in the user config file, keeping comments and layout'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'agentguard;config;help;path'= {
        }
        &'agentguard;config;help;show'= {
        }
        &'agentguard;config;help;init'= {
        }
        &'agentguard;config;help;get'= {
        }
        &'agentguard;config;help;set'= {
        }
        &'agentguard;config;help;help'= {
        }
        &'agentguard;launch'= {
            cand --read-only 'Start the CLI so that it cannot write'
            cand --print 'Print the argv instead of running it'
            cand --json 'Print the argv and environment as JSON instead of running it'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'agentguard;trust'= {
            cand --list 'List the trusted files and whether each is still trusted as it is now'
            cand --revoke 'Forget the trust of the file (it applies only where it tightens again)'
            cand -y 'Trust without asking (for scripts): review the file first'
            cand --yes 'Trust without asking (for scripts): review the file first'
            cand --json 'Machine-readable output (with --list)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'agentguard;completions'= {
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'agentguard;self-update'= {
            cand --check 'Only say whether a newer release exists (exit 1 if one does, 0 if up to date)'
            cand -y 'Do not ask for confirmation'
            cand --yes 'Do not ask for confirmation'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'agentguard;help'= {
            cand install 'Add agentguard''s hooks to Claude Code or Codex settings'
            cand uninstall 'Remove agentguard''s hooks, and nothing else (--purge: also agentguard''s own files)'
            cand hook 'Hook entry points, called by the agent host'
            cand judge 'Run the detectors on a text (file or stdin)'
            cand redact 'Replace secrets in a text with [REDACTED:<kind>]'
            cand logs 'Show, measure and replay logged decisions'
            cand doctor 'Check everything a failure could hide behind'
            cand config 'Read and edit the configuration'
            cand launch 'Start an agent CLI as a read-only reviewer'
            cand trust 'Let a project''s .agentguard.toml loosen settings (after you reviewed it)'
            cand completions 'Print shell completions, or the man page'
            cand self-update 'Update agentguard from its releases'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'agentguard;help;install'= {
        }
        &'agentguard;help;uninstall'= {
        }
        &'agentguard;help;hook'= {
            cand stop 'Stop and SubagentStop: judge the agent''s final words'
            cand pre-tool 'PreToolUse: enforce read-only roles and gate dangerous commands'
        }
        &'agentguard;help;hook;stop'= {
        }
        &'agentguard;help;hook;pre-tool'= {
        }
        &'agentguard;help;judge'= {
        }
        &'agentguard;help;redact'= {
        }
        &'agentguard;help;logs'= {
            cand show 'One decision in full'
            cand stats 'Figures per detector and per day'
            cand replay 'Re-judge logged texts with today''s config and show changed verdicts'
            cand label 'Label a decision right or wrong'
            cand export 'Write decisions as JSONL'
        }
        &'agentguard;help;logs;show'= {
        }
        &'agentguard;help;logs;stats'= {
        }
        &'agentguard;help;logs;replay'= {
        }
        &'agentguard;help;logs;label'= {
        }
        &'agentguard;help;logs;export'= {
        }
        &'agentguard;help;doctor'= {
        }
        &'agentguard;help;config'= {
            cand path 'Print the path of every config file, and whether it exists'
            cand show 'Print the effective configuration (defaults, user, project, env merged)'
            cand init 'Write a commented default config to the user config file'
            cand get 'Print one value by dotted key (judge.backend)'
            cand set 'Set one value in the user config file, keeping comments and layout'
        }
        &'agentguard;help;config;path'= {
        }
        &'agentguard;help;config;show'= {
        }
        &'agentguard;help;config;init'= {
        }
        &'agentguard;help;config;get'= {
        }
        &'agentguard;help;config;set'= {
        }
        &'agentguard;help;launch'= {
        }
        &'agentguard;help;trust'= {
        }
        &'agentguard;help;completions'= {
        }
        &'agentguard;help;self-update'= {
        }
        &'agentguard;help;help'= {
        }
    ]
    $completions[$command]
}
