#pragma once
// The result frame a sandboxed child writes to its parent: magic, length, FNV-1a checksum, bytes.
// The checksum catches a candidate that scribbles on the result pipe; it is not a security boundary.
#include <cstdint>
#include <string>
#include <string_view>

namespace kforge::mpi_eval {

inline constexpr std::uint32_t kFrameMagic = 0x4b46524du;  // "KFRM"
inline constexpr std::size_t kFrameHeaderBytes = 4 + 8 + 8;

std::uint64_t fnv1a64(std::string_view bytes);

// Header (little-endian fields) followed by the payload.
std::string encode_frame(std::string_view payload);

enum class FrameState { empty, valid, corrupt };

struct DecodedFrame {
  FrameState state = FrameState::empty;
  std::string payload;  // when valid
  std::string problem;  // when corrupt: what is wrong, for the evidence
};

// Everything the parent read from the result pipe: nothing, exactly one valid frame, or something else.
DecodedFrame decode_frame(std::string_view bytes);

}  // namespace kforge::mpi_eval
