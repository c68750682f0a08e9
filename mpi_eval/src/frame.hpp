#pragma once
// The result frame a sandboxed child writes to its parent: magic, length, HMAC-SHA256 tag, bytes.
// The tag is keyed with a secret drawn afresh for every child (FrameKey), so a frame written by anything that does
// not hold this run's key (a candidate that found the pipe, a frame replayed from another run, a cut or patched
// one) is refused. Candidate processes wipe the key before any candidate code runs (docs/isolation.md).
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace kforge::mpi_eval {

inline constexpr std::uint32_t kFrameMagic = 0x3252464bu;  // "KFR2"
inline constexpr std::size_t kFrameTagBytes = 32;
inline constexpr std::size_t kFrameHeaderBytes = 4 + 8 + kFrameTagBytes;

using FrameKey = std::array<std::uint8_t, 32>;

// A fresh key from the kernel's random source (getrandom). Throws std::runtime_error when there is none.
FrameKey fresh_frame_key();

std::uint64_t fnv1a64(std::string_view bytes);

// HMAC-SHA256 (RFC 2104) of `message` under `key`.
std::array<std::uint8_t, 32> hmac_sha256(const FrameKey& key, std::string_view message);

// Header (little-endian fields) followed by the payload.
std::string encode_frame(std::string_view payload, const FrameKey& key);

enum class FrameState { empty, valid, corrupt };

struct DecodedFrame {
  FrameState state = FrameState::empty;
  std::string payload;  // when valid
  std::string problem;  // when corrupt: what is wrong, for the evidence
};

// Everything the parent read from the result pipe: nothing, exactly one valid frame, or something else.
DecodedFrame decode_frame(std::string_view bytes, const FrameKey& key);

}  // namespace kforge::mpi_eval
