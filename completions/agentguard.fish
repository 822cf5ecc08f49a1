# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_agentguard_global_optspecs
    string join \n h/help V/version
end

function __fish_agentguard_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_agentguard_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_agentguard_using_subcommand
    set -l cmd (__fish_agentguard_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c agentguard -n "__fish_agentguard_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentguard -n "__fish_agentguard_needs_command" -s V -l version -d 'Print version'
complete -c agentguard -n "__fish_agentguard_needs_command" -f -a "install" -d 'Add agentguard\'s hooks to Claude Code or Codex settings'
complete -c agentguard -n "__fish_agentguard_needs_command" -f -a "uninstall" -d 'Remove agentguard\'s hooks, and nothing else (--purge: also agentguard\'s own files)'
complete -c agentguard -n "__fish_agentguard_needs_command" -f -a "hook" -d 'Hook entry points, called by the agent host'
complete -c agentguard -n "__fish_agentguard_needs_command" -f -a "judge" -d 'Run the detectors on a text (file or stdin)'
complete -c agentguard -n "__fish_agentguard_needs_command" -f -a "redact" -d 'Replace secrets in a text with [REDACTED:<kind>]'
complete -c agentguard -n "__fish_agentguard_needs_command" -f -a "logs" -d 'Show, measure and replay logged decisions'
complete -c agentguard -n "__fish_agentguard_needs_command" -f -a "doctor" -d 'Check everything a failure could hide behind'
complete -c agentguard -n "__fish_agentguard_needs_command" -f -a "config" -d 'Read and edit the configuration'
complete -c agentguard -n "__fish_agentguard_needs_command" -f -a "launch" -d 'Start an agent CLI as a read-only reviewer'
complete -c agentguard -n "__fish_agentguard_needs_command" -f -a "trust" -d 'Let a project\'s .agentguard.toml loosen settings (after you reviewed it)'
complete -c agentguard -n "__fish_agentguard_needs_command" -f -a "completions" -d 'Print shell completions, or the man page'
complete -c agentguard -n "__fish_agentguard_needs_command" -f -a "self-update" -d 'Update agentguard from its releases'
complete -c agentguard -n "__fish_agentguard_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c agentguard -n "__fish_agentguard_using_subcommand install" -l host -d 'Which agent host to configure' -r -f -a "claude\t'Claude Code'
codex\t'OpenAI Codex CLI'"
complete -c agentguard -n "__fish_agentguard_using_subcommand install" -l scope -d 'Which settings file to edit' -r -f -a "user\t'~/.claude/settings.json, ~/.codex/'
project\t'.claude/settings.json in the project (shared with the team)'
local\t'.claude/settings.local.json in the project (not committed)'"
complete -c agentguard -n "__fish_agentguard_using_subcommand install" -l events -d 'Hook events to install' -r -f -a "stop\t''
subagent-stop\t''
pre-tool\t''"
complete -c agentguard -n "__fish_agentguard_using_subcommand install" -l project-dir -d 'Project directory for the project and local scopes (default: current directory)' -r -F
complete -c agentguard -n "__fish_agentguard_using_subcommand install" -l dry-run -d 'Print the change as a unified diff and write nothing'
complete -c agentguard -n "__fish_agentguard_using_subcommand install" -s y -l yes -d 'Do not ask for confirmation'
complete -c agentguard -n "__fish_agentguard_using_subcommand install" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentguard -n "__fish_agentguard_using_subcommand uninstall" -l host -d 'Which agent host to configure' -r -f -a "claude\t'Claude Code'
codex\t'OpenAI Codex CLI'"
complete -c agentguard -n "__fish_agentguard_using_subcommand uninstall" -l scope -d 'Which settings file to edit' -r -f -a "user\t'~/.claude/settings.json, ~/.codex/'
project\t'.claude/settings.json in the project (shared with the team)'
local\t'.claude/settings.local.json in the project (not committed)'"
complete -c agentguard -n "__fish_agentguard_using_subcommand uninstall" -l events -d 'Hook events to install' -r -f -a "stop\t''
subagent-stop\t''
pre-tool\t''"
complete -c agentguard -n "__fish_agentguard_using_subcommand uninstall" -l project-dir -d 'Project directory for the project and local scopes (default: current directory)' -r -F
complete -c agentguard -n "__fish_agentguard_using_subcommand uninstall" -l dry-run -d 'Print the change as a unified diff and write nothing'
complete -c agentguard -n "__fish_agentguard_using_subcommand uninstall" -s y -l yes -d 'Do not ask for confirmation'
complete -c agentguard -n "__fish_agentguard_using_subcommand uninstall" -l purge -d 'Also remove agentguard\'s own files: its config, state (loop guard, trust store), decision logs and the settings backups it wrote; lists them first and asks unless --yes'
complete -c agentguard -n "__fish_agentguard_using_subcommand uninstall" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentguard -n "__fish_agentguard_using_subcommand hook; and not __fish_seen_subcommand_from stop pre-tool help" -s h -l help -d 'Print help'
complete -c agentguard -n "__fish_agentguard_using_subcommand hook; and not __fish_seen_subcommand_from stop pre-tool help" -f -a "stop" -d 'Stop and SubagentStop: judge the agent\'s final words'
complete -c agentguard -n "__fish_agentguard_using_subcommand hook; and not __fish_seen_subcommand_from stop pre-tool help" -f -a "pre-tool" -d 'PreToolUse: enforce read-only roles and gate dangerous commands'
complete -c agentguard -n "__fish_agentguard_using_subcommand hook; and not __fish_seen_subcommand_from stop pre-tool help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c agentguard -n "__fish_agentguard_using_subcommand hook; and __fish_seen_subcommand_from stop" -l host -d 'The host calling the hook (decides the output protocol)' -r -f -a "claude\t'Claude Code'
codex\t'OpenAI Codex CLI'"
complete -c agentguard -n "__fish_agentguard_using_subcommand hook; and __fish_seen_subcommand_from stop" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentguard -n "__fish_agentguard_using_subcommand hook; and __fish_seen_subcommand_from pre-tool" -l host -d 'The host calling the hook (decides the output protocol)' -r -f -a "claude\t'Claude Code'
codex\t'OpenAI Codex CLI'"
complete -c agentguard -n "__fish_agentguard_using_subcommand hook; and __fish_seen_subcommand_from pre-tool" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentguard -n "__fish_agentguard_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "stop" -d 'Stop and SubagentStop: judge the agent\'s final words'
complete -c agentguard -n "__fish_agentguard_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "pre-tool" -d 'PreToolUse: enforce read-only roles and gate dangerous commands'
complete -c agentguard -n "__fish_agentguard_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c agentguard -n "__fish_agentguard_using_subcommand judge" -l transcript -d 'Judge a stop as the hook would: the current turn\'s text and tool calls from this Claude Code transcript or Codex rollout' -r -F
complete -c agentguard -n "__fish_agentguard_using_subcommand judge" -s d -l detector -d 'Only run this detector (repeatable)' -r
complete -c agentguard -n "__fish_agentguard_using_subcommand judge" -s b -l backend -d 'Judge backend (auto, rules, command, codex, claude, openai, anthropic)' -r
complete -c agentguard -n "__fish_agentguard_using_subcommand judge" -l eval -d 'Measure the detectors on a labeled JSONL set instead (the repo\'s tests/corpus/messages.jsonl, or `agentguard logs export --labeled`)' -r -F
complete -c agentguard -n "__fish_agentguard_using_subcommand judge" -l json -d 'Print one JSON object instead of a table'
complete -c agentguard -n "__fish_agentguard_using_subcommand judge" -s h -l help -d 'Print help'
complete -c agentguard -n "__fish_agentguard_using_subcommand redact" -l json -d 'Print the counts per kind as JSON on stderr'
complete -c agentguard -n "__fish_agentguard_using_subcommand redact" -l check -d 'Exit 1 when anything was redacted'
complete -c agentguard -n "__fish_agentguard_using_subcommand redact" -s h -l help -d 'Print help'
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and not __fish_seen_subcommand_from show stats replay label export help" -l since -d 'Only decisions newer than this: 2h, 3d, 45m or a date (2026-11-29)' -r
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and not __fish_seen_subcommand_from show stats replay label export help" -l detector -d 'Only this detector' -r
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and not __fish_seen_subcommand_from show stats replay label export help" -l verdict -d 'Only this verdict (violation, allow, fail, skip, miss)' -r
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and not __fish_seen_subcommand_from show stats replay label export help" -l session -d 'Only this session id' -r
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and not __fish_seen_subcommand_from show stats replay label export help" -l cwd -d 'Only decisions made in this working directory' -r -F
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and not __fish_seen_subcommand_from show stats replay label export help" -l json -d 'One JSON record per line'
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and not __fish_seen_subcommand_from show stats replay label export help" -s f -l follow -d 'Keep printing new decisions as they are logged'
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and not __fish_seen_subcommand_from show stats replay label export help" -s h -l help -d 'Print help'
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and not __fish_seen_subcommand_from show stats replay label export help" -f -a "show" -d 'One decision in full'
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and not __fish_seen_subcommand_from show stats replay label export help" -f -a "stats" -d 'Figures per detector and per day'
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and not __fish_seen_subcommand_from show stats replay label export help" -f -a "replay" -d 'Re-judge logged texts with today\'s config and show changed verdicts'
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and not __fish_seen_subcommand_from show stats replay label export help" -f -a "label" -d 'Label a decision right or wrong'
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and not __fish_seen_subcommand_from show stats replay label export help" -f -a "export" -d 'Write decisions as JSONL'
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and not __fish_seen_subcommand_from show stats replay label export help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and __fish_seen_subcommand_from show" -l json
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and __fish_seen_subcommand_from stats" -l since -r
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and __fish_seen_subcommand_from stats" -l json
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and __fish_seen_subcommand_from stats" -s h -l help -d 'Print help'
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and __fish_seen_subcommand_from replay" -l since -d 'Only decisions newer than this: 2h, 3d, 45m or a date (2026-11-29)' -r
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and __fish_seen_subcommand_from replay" -l detector -d 'Only this detector' -r
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and __fish_seen_subcommand_from replay" -l verdict -d 'Only this verdict (violation, allow, fail, skip, miss)' -r
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and __fish_seen_subcommand_from replay" -l session -d 'Only this session id' -r
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and __fish_seen_subcommand_from replay" -l cwd -d 'Only decisions made in this working directory' -r -F
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and __fish_seen_subcommand_from replay" -l backend -d 'Judge backend for the replay' -r
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and __fish_seen_subcommand_from replay" -l json
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and __fish_seen_subcommand_from replay" -s h -l help -d 'Print help'
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and __fish_seen_subcommand_from label" -l note -d 'Why, in a few words (exported with the example)' -r
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and __fish_seen_subcommand_from label" -s d -l detector -d 'With `wrong`: on a block, the detector(s) that were wrong to block (default: all); on an allow, the detector(s) that should have blocked (default: the one whose Layer 1 matched)' -r
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and __fish_seen_subcommand_from label" -s h -l help -d 'Print help'
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and __fish_seen_subcommand_from export" -l since -d 'Only decisions newer than this: 2h, 3d, 45m or a date (2026-11-29)' -r
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and __fish_seen_subcommand_from export" -l detector -d 'Only this detector' -r
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and __fish_seen_subcommand_from export" -l verdict -d 'Only this verdict (violation, allow, fail, skip, miss)' -r
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and __fish_seen_subcommand_from export" -l session -d 'Only this session id' -r
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and __fish_seen_subcommand_from export" -l cwd -d 'Only decisions made in this working directory' -r -F
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and __fish_seen_subcommand_from export" -l labeled -d 'Only labeled decisions, in the evaluation-set format'
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and __fish_seen_subcommand_from export" -s h -l help -d 'Print help'
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and __fish_seen_subcommand_from help" -f -a "show" -d 'One decision in full'
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and __fish_seen_subcommand_from help" -f -a "stats" -d 'Figures per detector and per day'
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and __fish_seen_subcommand_from help" -f -a "replay" -d 'Re-judge logged texts with today\'s config and show changed verdicts'
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and __fish_seen_subcommand_from help" -f -a "label" -d 'Label a decision right or wrong'
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and __fish_seen_subcommand_from help" -f -a "export" -d 'Write decisions as JSONL'
complete -c agentguard -n "__fish_agentguard_using_subcommand logs; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c agentguard -n "__fish_agentguard_using_subcommand doctor" -l json -d 'Machine-readable report'
complete -c agentguard -n "__fish_agentguard_using_subcommand doctor" -l probe -d 'Send a tiny known text through the configured judge backend'
complete -c agentguard -n "__fish_agentguard_using_subcommand doctor" -s h -l help -d 'Print help'
complete -c agentguard -n "__fish_agentguard_using_subcommand config; and not __fish_seen_subcommand_from path show init get set help" -s h -l help -d 'Print help'
complete -c agentguard -n "__fish_agentguard_using_subcommand config; and not __fish_seen_subcommand_from path show init get set help" -f -a "path" -d 'Print the path of every config file, and whether it exists'
complete -c agentguard -n "__fish_agentguard_using_subcommand config; and not __fish_seen_subcommand_from path show init get set help" -f -a "show" -d 'Print the effective configuration (defaults, user, project, env merged)'
complete -c agentguard -n "__fish_agentguard_using_subcommand config; and not __fish_seen_subcommand_from path show init get set help" -f -a "init" -d 'Write a commented default config to the user config file'
complete -c agentguard -n "__fish_agentguard_using_subcommand config; and not __fish_seen_subcommand_from path show init get set help" -f -a "get" -d 'Print one value by dotted key (judge.backend)'
complete -c agentguard -n "__fish_agentguard_using_subcommand config; and not __fish_seen_subcommand_from path show init get set help" -f -a "set" -d 'Set one value in the user config file, keeping comments and layout'
complete -c agentguard -n "__fish_agentguard_using_subcommand config; and not __fish_seen_subcommand_from path show init get set help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c agentguard -n "__fish_agentguard_using_subcommand config; and __fish_seen_subcommand_from path" -s h -l help -d 'Print help'
complete -c agentguard -n "__fish_agentguard_using_subcommand config; and __fish_seen_subcommand_from show" -l json
complete -c agentguard -n "__fish_agentguard_using_subcommand config; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c agentguard -n "__fish_agentguard_using_subcommand config; and __fish_seen_subcommand_from init" -l force -d 'Overwrite an existing file'
complete -c agentguard -n "__fish_agentguard_using_subcommand config; and __fish_seen_subcommand_from init" -s h -l help -d 'Print help'
complete -c agentguard -n "__fish_agentguard_using_subcommand config; and __fish_seen_subcommand_from get" -s h -l help -d 'Print help'
complete -c agentguard -n "__fish_agentguard_using_subcommand config; and __fish_seen_subcommand_from set" -l project -d 'Edit the project\'s .agentguard.toml instead'
complete -c agentguard -n "__fish_agentguard_using_subcommand config; and __fish_seen_subcommand_from set" -s h -l help -d 'Print help'
complete -c agentguard -n "__fish_agentguard_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "path" -d 'Print the path of every config file, and whether it exists'
complete -c agentguard -n "__fish_agentguard_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "show" -d 'Print the effective configuration (defaults, user, project, env merged)'
complete -c agentguard -n "__fish_agentguard_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "init" -d 'Write a commented default config to the user config file'
complete -c agentguard -n "__fish_agentguard_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "get" -d 'Print one value by dotted key (judge.backend)'
complete -c agentguard -n "__fish_agentguard_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "set" -d 'Set one value in the user config file, keeping comments and layout'
complete -c agentguard -n "__fish_agentguard_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c agentguard -n "__fish_agentguard_using_subcommand launch" -l read-only -d 'Start the CLI so that it cannot write'
complete -c agentguard -n "__fish_agentguard_using_subcommand launch" -l print -d 'Print the argv instead of running it'
complete -c agentguard -n "__fish_agentguard_using_subcommand launch" -l json -d 'Print the argv and environment as JSON instead of running it'
complete -c agentguard -n "__fish_agentguard_using_subcommand launch" -s h -l help -d 'Print help'
complete -c agentguard -n "__fish_agentguard_using_subcommand trust" -l list -d 'List the trusted files and whether each is still trusted as it is now'
complete -c agentguard -n "__fish_agentguard_using_subcommand trust" -l revoke -d 'Forget the trust of the file (it applies only where it tightens again)'
complete -c agentguard -n "__fish_agentguard_using_subcommand trust" -s y -l yes -d 'Trust without asking (for scripts): review the file first'
complete -c agentguard -n "__fish_agentguard_using_subcommand trust" -l json -d 'Machine-readable output (with --list)'
complete -c agentguard -n "__fish_agentguard_using_subcommand trust" -s h -l help -d 'Print help'
complete -c agentguard -n "__fish_agentguard_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentguard -n "__fish_agentguard_using_subcommand self-update" -l check -d 'Only say whether a newer release exists (exit 1 if one does, 0 if up to date)'
complete -c agentguard -n "__fish_agentguard_using_subcommand self-update" -s y -l yes -d 'Do not ask for confirmation'
complete -c agentguard -n "__fish_agentguard_using_subcommand self-update" -s h -l help -d 'Print help'
complete -c agentguard -n "__fish_agentguard_using_subcommand help; and not __fish_seen_subcommand_from install uninstall hook judge redact logs doctor config launch trust completions self-update help" -f -a "install" -d 'Add agentguard\'s hooks to Claude Code or Codex settings'
complete -c agentguard -n "__fish_agentguard_using_subcommand help; and not __fish_seen_subcommand_from install uninstall hook judge redact logs doctor config launch trust completions self-update help" -f -a "uninstall" -d 'Remove agentguard\'s hooks, and nothing else (--purge: also agentguard\'s own files)'
complete -c agentguard -n "__fish_agentguard_using_subcommand help; and not __fish_seen_subcommand_from install uninstall hook judge redact logs doctor config launch trust completions self-update help" -f -a "hook" -d 'Hook entry points, called by the agent host'
complete -c agentguard -n "__fish_agentguard_using_subcommand help; and not __fish_seen_subcommand_from install uninstall hook judge redact logs doctor config launch trust completions self-update help" -f -a "judge" -d 'Run the detectors on a text (file or stdin)'
complete -c agentguard -n "__fish_agentguard_using_subcommand help; and not __fish_seen_subcommand_from install uninstall hook judge redact logs doctor config launch trust completions self-update help" -f -a "redact" -d 'Replace secrets in a text with [REDACTED:<kind>]'
complete -c agentguard -n "__fish_agentguard_using_subcommand help; and not __fish_seen_subcommand_from install uninstall hook judge redact logs doctor config launch trust completions self-update help" -f -a "logs" -d 'Show, measure and replay logged decisions'
complete -c agentguard -n "__fish_agentguard_using_subcommand help; and not __fish_seen_subcommand_from install uninstall hook judge redact logs doctor config launch trust completions self-update help" -f -a "doctor" -d 'Check everything a failure could hide behind'
complete -c agentguard -n "__fish_agentguard_using_subcommand help; and not __fish_seen_subcommand_from install uninstall hook judge redact logs doctor config launch trust completions self-update help" -f -a "config" -d 'Read and edit the configuration'
complete -c agentguard -n "__fish_agentguard_using_subcommand help; and not __fish_seen_subcommand_from install uninstall hook judge redact logs doctor config launch trust completions self-update help" -f -a "launch" -d 'Start an agent CLI as a read-only reviewer'
complete -c agentguard -n "__fish_agentguard_using_subcommand help; and not __fish_seen_subcommand_from install uninstall hook judge redact logs doctor config launch trust completions self-update help" -f -a "trust" -d 'Let a project\'s .agentguard.toml loosen settings (after you reviewed it)'
complete -c agentguard -n "__fish_agentguard_using_subcommand help; and not __fish_seen_subcommand_from install uninstall hook judge redact logs doctor config launch trust completions self-update help" -f -a "completions" -d 'Print shell completions, or the man page'
complete -c agentguard -n "__fish_agentguard_using_subcommand help; and not __fish_seen_subcommand_from install uninstall hook judge redact logs doctor config launch trust completions self-update help" -f -a "self-update" -d 'Update agentguard from its releases'
complete -c agentguard -n "__fish_agentguard_using_subcommand help; and not __fish_seen_subcommand_from install uninstall hook judge redact logs doctor config launch trust completions self-update help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c agentguard -n "__fish_agentguard_using_subcommand help; and __fish_seen_subcommand_from hook" -f -a "stop" -d 'Stop and SubagentStop: judge the agent\'s final words'
complete -c agentguard -n "__fish_agentguard_using_subcommand help; and __fish_seen_subcommand_from hook" -f -a "pre-tool" -d 'PreToolUse: enforce read-only roles and gate dangerous commands'
complete -c agentguard -n "__fish_agentguard_using_subcommand help; and __fish_seen_subcommand_from logs" -f -a "show" -d 'One decision in full'
complete -c agentguard -n "__fish_agentguard_using_subcommand help; and __fish_seen_subcommand_from logs" -f -a "stats" -d 'Figures per detector and per day'
complete -c agentguard -n "__fish_agentguard_using_subcommand help; and __fish_seen_subcommand_from logs" -f -a "replay" -d 'Re-judge logged texts with today\'s config and show changed verdicts'
complete -c agentguard -n "__fish_agentguard_using_subcommand help; and __fish_seen_subcommand_from logs" -f -a "label" -d 'Label a decision right or wrong'
complete -c agentguard -n "__fish_agentguard_using_subcommand help; and __fish_seen_subcommand_from logs" -f -a "export" -d 'Write decisions as JSONL'
complete -c agentguard -n "__fish_agentguard_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "path" -d 'Print the path of every config file, and whether it exists'
complete -c agentguard -n "__fish_agentguard_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "show" -d 'Print the effective configuration (defaults, user, project, env merged)'
complete -c agentguard -n "__fish_agentguard_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "init" -d 'Write a commented default config to the user config file'
complete -c agentguard -n "__fish_agentguard_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "get" -d 'Print one value by dotted key (judge.backend)'
complete -c agentguard -n "__fish_agentguard_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "set" -d 'Set one value in the user config file, keeping comments and layout'
