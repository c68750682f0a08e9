#pragma once
// A self-contained SHA-256 (FIPS 180-4): the candidate id must not depend on which crypto library a site has.
#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace kforge::jobs::detail {

class Sha256 {
 public:
  Sha256();
  void update(std::string_view bytes);
  std::array<std::uint8_t, 32> finish();  // call once

 private:
  void compress(const std::uint8_t* block);

  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_bytes_ = 0;
};

// Lower-case hex of a digest.
std::string to_hex(const std::array<std::uint8_t, 32>& digest);

// Hex SHA-256 of a file's bytes, read in blocks (the seal of a generation file in campaign.h5). Throws
// std::runtime_error naming the file when it cannot be read.
std::string file_sha256_hex(const std::filesystem::path& path);

}  // namespace kforge::jobs::detail
