#include "frame.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "kforge/jobs/candidate.hpp"

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

std::string raw_sha256(std::string_view bytes) {
  const std::string hex = jobs::sha256_hex(bytes);
  std::string raw(32, '\0');
  for (std::size_t i = 0; i < 32; ++i) raw[i] = static_cast<char>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return raw;
}

// The tag covers the length too, so a frame cut at a payload boundary cannot keep a valid tag.
std::string tag_of(const FrameKey& key, std::string_view payload) {
  std::string message;
  put_le(message, payload.size(), 8);
  message.append(payload);
  const auto tag = hmac_sha256(key, message);
  return std::string(reinterpret_cast<const char*>(tag.data()), tag.size());
}

// Compares all bytes whatever differs first, so the time taken says nothing about the tag.
bool same_bytes(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

FrameKey fresh_frame_key() {
  FrameKey key{};
  std::size_t done = 0;
  while (done < key.size()) {
    const ssize_t n = ::getrandom(key.data() + done, key.size() - done, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error(std::string("getrandom for the result frame key: ") + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
  return key;
}

std::uint64_t fnv1a64(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::array<std::uint8_t, 32> hmac_sha256(const FrameKey& key, std::string_view message) {
  std::string inner(64, '\x36'), outer(64, '\x5c');
  for (std::size_t i = 0; i < key.size(); ++i) {
    inner[i] = static_cast<char>(inner[i] ^ key[i]);
    outer[i] = static_cast<char>(outer[i] ^ key[i]);
  }
  const std::string digest = raw_sha256(outer + raw_sha256(inner.append(message)));
  std::array<std::uint8_t, 32> out{};
  std::memcpy(out.data(), digest.data(), out.size());
  return out;
}

std::string encode_frame(std::string_view payload, const FrameKey& key) {
  std::string out;
  out.reserve(kFrameHeaderBytes + payload.size());
  put_le(out, kFrameMagic, 4);
  put_le(out, payload.size(), 8);
  out.append(tag_of(key, payload));
  out.append(payload);
  return out;
}

DecodedFrame decode_frame(std::string_view bytes, const FrameKey& key) {
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
    d.problem = "result frame announces " + std::to_string(length) + " bytes but carries " + std::to_string(body_bytes);
    return d;
  }
  const std::string_view payload = bytes.substr(kFrameHeaderBytes);
  if (!same_bytes(tag_of(key, payload), bytes.substr(12, kFrameTagBytes))) {
    d.problem = "result frame not authenticated: its tag does not match this run's key (forged, replayed or damaged)";
    return d;
  }
  d.state = FrameState::valid;
  d.payload = std::string(payload);
  return d;
}

}  // namespace kforge::mpi_eval
