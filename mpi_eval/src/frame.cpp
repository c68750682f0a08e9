#include "frame.hpp"

#include <array>

namespace kforge::mpi_eval {
namespace {

void put_le(std::string& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xffu));
}

std::uint64_t get_le(std::string_view in, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= std::uint64_t{static_cast<unsigned char>(in[at + i])} << (8 * i);
  return v;
}

}  // namespace

std::uint64_t fnv1a64(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string encode_frame(std::string_view payload) {
  std::string out;
  out.reserve(kFrameHeaderBytes + payload.size());
  put_le(out, kFrameMagic, 4);
  put_le(out, payload.size(), 8);
  put_le(out, fnv1a64(payload), 8);
  out.append(payload);
  return out;
}

DecodedFrame decode_frame(std::string_view bytes) {
  DecodedFrame d;
  if (bytes.empty()) return d;
  d.state = FrameState::corrupt;
  if (bytes.size() < kFrameHeaderBytes) {
    d.problem = "result frame truncated: " + std::to_string(bytes.size()) + " bytes, header needs " +
                std::to_string(kFrameHeaderBytes);
    return d;
  }
  if (get_le(bytes, 0, 4) != kFrameMagic) {
    d.problem = "result frame has a wrong magic number";
    return d;
  }
  const std::uint64_t length = get_le(bytes, 4, 8);
  const std::uint64_t body_bytes = bytes.size() - kFrameHeaderBytes;
  if (length != body_bytes) {
    d.problem = "result frame announces " + std::to_string(length) + " bytes but carries " +
                std::to_string(body_bytes);
    return d;
  }
  const std::string_view payload = bytes.substr(kFrameHeaderBytes);
  if (fnv1a64(payload) != get_le(bytes, 12, 8)) {
    d.problem = "result frame checksum mismatch";
    return d;
  }
  d.state = FrameState::valid;
  d.payload = std::string(payload);
  return d;
}

}  // namespace kforge::mpi_eval
