#pragma once
// `kforge export --best --to DIR` for a host gemm kernel also writes run.cpp and run.sh: a driver that needs
// nothing of kforge, so the kernel can be rerun, checked and timed outside it (docs/cli.md, "kforge export").
#include <cstdint>
#include <map>
#include <string>

namespace kforge::scheduler {

// The driver's C++ source for a family, or "" when there is none (only host gemm has one).
std::string rerun_driver_source(const std::string& backend, const std::string& family);

// run.sh: builds the driver with `compiler` and runs it against ID.so at the campaign's problem sizes.
std::string rerun_script(const std::string& compiler, const std::string& id,
                         const std::map<std::string, std::int64_t>& problem);

}  // namespace kforge::scheduler
