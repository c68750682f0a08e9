#include "module_checks.hpp"

#include <algorithm>
#include <regex>
#include <string>

namespace kforge::kernels::cuda {
namespace {

constexpr std::size_t kElfTypeOffset = 16;  // e_type, a little-endian 16-bit field after the 16-byte e_ident
constexpr unsigned kElfRelocatable = 1, kElfExecutable = 2;

}  // namespace

std::optional<std::string> image_rejection(std::string_view image) {
  if (image.size() < kElfTypeOffset + 2 || image.substr(0, 4) !=
                                               "\x7f"
                                               "ELF")
    return "the compiled module is not an ELF cubin";
  const unsigned type = static_cast<unsigned char>(image[kElfTypeOffset]) |
                        static_cast<unsigned>(static_cast<unsigned char>(image[kElfTypeOffset + 1])) << 8;
  if (type == kElfRelocatable)
    return "the module is relocatable device code (-rdc/-dc in the compile flags): kforge links no device "
           "runtime, so device-side launches (dynamic parallelism, fire-and-forget or tail launches onto streams "
           "the harness does not own) cannot run; compile without -rdc";
  if (type != kElfExecutable) return "the cubin has ELF type " + std::to_string(type) + ", not an executable image";
  return std::nullopt;
}

std::int64_t static_device_bytes(std::string_view ptxas_log) {
  static const std::regex gmem(R"((\d+) bytes gmem)");
  const std::string log(ptxas_log);
  std::int64_t total = -1;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), gmem); it != std::sregex_iterator(); ++it)
    total = std::max<std::int64_t>(total, 0) + std::stoll((*it)[1].str());
  return total;
}

std::optional<std::string> device_memory_rejection(std::int64_t gmem_bytes, std::int64_t limit_mb) {
  if (limit_mb <= 0 || gmem_bytes <= (limit_mb << 20)) return std::nullopt;
  return "the module's __device__ variables take " + std::to_string(gmem_bytes) +
         " bytes of device memory (ptxas \"bytes gmem\"), more than memory_limit_mb = " + std::to_string(limit_mb) +
         " MiB";
}

}  // namespace kforge::kernels::cuda
