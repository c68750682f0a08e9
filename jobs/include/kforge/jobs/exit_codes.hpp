#pragma once
// Every exit code of kforge, kforged and kforge-eval, with its meaning: docs/cli.md ("Exit codes", and
// kforge-eval's section) and docs/daemon.md ("Exit codes") document this list, and a code means the same in every
// binary that uses it (tests/jobs/exit_codes_test.cpp checks the docs' tables against it). A candidate's failure
// is a record in its shard, never an exit code.
namespace kforge::jobs::exit_code {

// kforge: the command did what it was asked. kforged: a clean stop on SIGTERM/SIGINT, or with --once every
// campaign ended and none failed. kforge-eval: the shard is written.
inline constexpr int kSuccess = 0;

// kforge: a runtime failure (the message names the file or step). kforged: another fatal error, or with --once
// a campaign failed during the run.
inline constexpr int kFailure = 1;

// All three: bad usage or a configuration that cannot work (kforge: an unknown command, an invalid campaign or
// site file, a campaign file changed beyond search.generations; kforged: an unusable spool, another kforged on it,
// no kforge binary; kforge-eval: an unreadable manifest). Nothing has been written; running again does not help.
inline constexpr int kUsage = 2;

// kforge run: a generation failed for infrastructure reasons and the campaign stopped (infra_failure.hpp).
// kforge-eval: the harness failed on this node.
inline constexpr int kInfrastructure = 3;

// kforge verify: the archive is damaged (one line per problem on stdout).
inline constexpr int kArchiveDamaged = 4;

// kforge run stopped by a signal: 128 + the signal, as a shell reports a command it ended (130 after Ctrl-C,
// 143 after SIGTERM).
constexpr int stopped_by_signal(int signal) { return 128 + signal; }

}  // namespace kforge::jobs::exit_code
