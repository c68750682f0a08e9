#pragma once
// `kforge verify DIR` (docs/cli.md): every archive file of a campaign checked, one line per problem.
#include <filesystem>
#include <ostream>

namespace kforge::scheduler {

// Writes one line per problem ("FILE: what is wrong") and per note ("note: ...") to out, then a summary line;
// returns true when there is no problem (`kforge verify` then exits 0, else
// jobs::exit_code::kArchiveDamaged). Throws
// std::runtime_error when dir is not a campaign directory.
bool verify_campaign(const std::filesystem::path& dir, std::ostream& out);

}  // namespace kforge::scheduler
