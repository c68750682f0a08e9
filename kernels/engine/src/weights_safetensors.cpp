// safetensors files (https://huggingface.co/docs/safetensors): an 8-byte little-endian header length, a JSON header
// {name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__": {...}}, then the tensor bytes (offsets
// relative to the end of the header). F32 and BF16 are read; F32 is written.
#include <bit>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "kforge/engine/model_weights.hpp"

namespace kforge::kernels::engine {
namespace {

std::uint64_t read_le64(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("weights file " + path + ": cannot open it");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw std::runtime_error("weights file " + path + ": read error");
  return bytes;
}

float bf16_to_float(std::uint16_t bits) { return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16); }

}  // namespace

Weights load_safetensors(const std::string& path, const jobs::ModelSpec& model) {
  const std::string bytes = read_file(path);
  auto fail = [&](const std::string& what) { return std::runtime_error("weights file " + path + ": " + what); };
  if (bytes.size() < 8) throw fail("too short for a safetensors header");
  const std::uint64_t header_len = read_le64(reinterpret_cast<const unsigned char*>(bytes.data()));
  if (header_len > bytes.size() - 8) throw fail("header length " + std::to_string(header_len) + " exceeds the file");
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(bytes.substr(8, header_len));
  } catch (const nlohmann::json::exception& e) {
    throw fail(std::string("header is not JSON: ") + e.what());
  }
  if (!header.is_object()) throw fail("header is not a JSON object");
  const std::size_t data_start = 8 + header_len, data_size = bytes.size() - data_start;
  struct Entry {
    std::string dtype;
    std::uint64_t begin = 0, end = 0;
  };
  std::vector<TensorInfo> found;
  std::vector<Entry> entries;
  for (const auto& [name, info] : header.items()) {
    if (name == "__metadata__") continue;
    try {
      TensorInfo t{name, info.at("shape").get<std::vector<std::int64_t>>()};
      const auto offsets = info.at("data_offsets").get<std::vector<std::uint64_t>>();
      if (offsets.size() != 2) throw fail("tensor " + name + ": data_offsets must hold two numbers");
      entries.push_back({info.at("dtype").get<std::string>(), offsets[0], offsets[1]});
      found.push_back(std::move(t));
    } catch (const nlohmann::json::exception& e) {
      throw fail("tensor " + name + ": bad header entry (" + e.what() + ")");
    }
  }
  const std::vector<TensorInfo> expected = tensor_list(model);
  check_file_tensors(path, expected, found);
  Weights w = empty_weights(model);
  for (std::size_t i = 0; i < found.size(); ++i) {
    const TensorInfo& t = found[i];
    const Entry& e = entries[i];
    const std::size_t width = e.dtype == "F32" ? 4 : e.dtype == "BF16" ? 2 : 0;
    if (width == 0) throw fail("tensor " + t.name + ": dtype " + e.dtype + " is not supported (F32 or BF16)");
    const std::uint64_t want = static_cast<std::uint64_t>(t.elements()) * width;
    if (e.begin > e.end || e.end > data_size || e.end - e.begin != want)
      throw fail("tensor " + t.name + ": data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
                 ") do not hold " + std::to_string(want) + " bytes of " + e.dtype + " inside the file");
    float* out = w.tensor(t.name);
    const char* src = bytes.data() + data_start + e.begin;
    if (width == 4) {
      std::memcpy(out, src, want);  // little-endian file, little-endian host (x86-64, aarch64)
    } else {
      for (std::int64_t k = 0; k < t.elements(); ++k) {
        std::uint16_t bits = 0;
        std::memcpy(&bits, src + 2 * k, 2);
        out[k] = bf16_to_float(bits);
      }
    }
  }
  return w;
}

void write_safetensors(const std::string& path, const Weights& weights) {
  nlohmann::json header = nlohmann::json::object();
  header["__metadata__"] = {{"format", "pt"}, {"writer", "kforge"}};
  std::uint64_t at = 0;
  for (const auto& t : weights.tensors) {
    const std::uint64_t bytes = static_cast<std::uint64_t>(t.elements()) * 4;
    header[t.name] = {{"dtype", "F32"}, {"shape", t.shape}, {"data_offsets", {at, at + bytes}}};
    at += bytes;
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // the data starts 8-byte aligned, as the format recommends
  unsigned char len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>(static_cast<std::uint64_t>(text.size()) >> (8 * i));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("weights file " + path + ": cannot create it");
  out.write(reinterpret_cast<const char*>(len), 8);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  for (std::size_t i = 0; i < weights.tensors.size(); ++i)
    out.write(reinterpret_cast<const char*>(weights.data.data() + weights.offsets[i]),
              static_cast<std::streamsize>(weights.tensors[i].elements() * 4));
  out.close();
  if (!out) throw std::runtime_error("weights file " + path + ": write error");
}

}  // namespace kforge::kernels::engine
