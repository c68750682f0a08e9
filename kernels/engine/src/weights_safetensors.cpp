// safetensors files (https://huggingface.co/docs/safetensors): an 8-byte little-endian header length, a JSON header
// {name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__": {...}}, then the tensor bytes (offsets
// relative to the end of the header). F32, BF16 and F16 are read, from one file or the shards of a model folder;
// F32 is written.
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

float bf16_to_float(std::uint16_t bits) { return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16); }

// IEEE half to float, subnormals, infinities and NaN included.
float f16_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {
    if (mantissa == 0) return std::bit_cast<float>(sign);
    std::uint32_t shift = 0;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      ++shift;
    }
    return std::bit_cast<float>(sign | ((113 - shift) << 23) | ((mantissa & 0x3ffu) << 13));
  }
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

std::size_t dtype_width(const std::string& dtype) {
  return dtype == "F32" ? 4 : (dtype == "BF16" || dtype == "F16") ? 2 : 0;
}

struct Entry {
  std::string dtype;
  std::uint64_t begin = 0, end = 0;
};

// One safetensors file's header, every entry checked (dtype, offsets inside the file) before any tensor is read; the
// tensor bytes are read one tensor at a time, so a model folder of several GB never sits in memory twice.
class SafetensorsFile {
 public:
  explicit SafetensorsFile(const std::string& file) : path_(file), in_(file, std::ios::binary) {
    if (!in_) throw fail("cannot open it");
    in_.seekg(0, std::ios::end);
    const auto size = static_cast<std::uint64_t>(in_.tellg());
    if (size < 8) throw fail("too short for a safetensors header");
    unsigned char len[8];
    read_at(0, len, 8);
    const std::uint64_t header_len = read_le64(len);
    if (header_len > size - 8 || header_len > (std::uint64_t{100} << 20))
      throw fail("header length " + std::to_string(header_len) + " exceeds the file (or 100 MiB)");
    std::string text(header_len, '\0');
    read_at(8, text.data(), header_len);
    nlohmann::json header;
    try {
      header = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      throw fail(std::string("header is not JSON: ") + e.what());
    }
    if (!header.is_object()) throw fail("header is not a JSON object");
    data_start_ = 8 + header_len;
    for (const auto& [name, info] : header.items())
      if (name != "__metadata__") add_entry(name, info, size - data_start_);
  }

  const std::vector<TensorInfo>& tensors() const { return tensors_; }

  // Tensor i widened to float32 into `out` (its elements() floats).
  void copy(std::size_t i, float* out) {
    const Entry& e = entries_[i];
    const std::size_t width = dtype_width(e.dtype), count = static_cast<std::size_t>(tensors_[i].elements());
    if (width == 4) {
      read_at(data_start_ + e.begin, out, e.end - e.begin);  // little-endian file, little-endian host
      return;
    }
    std::vector<std::uint16_t> bits(count);
    read_at(data_start_ + e.begin, bits.data(), e.end - e.begin);
    for (std::size_t k = 0; k < count; ++k) out[k] = e.dtype == "BF16" ? bf16_to_float(bits[k]) : f16_to_float(bits[k]);
  }

 private:
  std::runtime_error fail(const std::string& what) const {
    return std::runtime_error("weights file " + path_ + ": " + what);
  }

  void read_at(std::uint64_t offset, void* to, std::uint64_t bytes) {
    in_.seekg(static_cast<std::streamoff>(offset));
    in_.read(static_cast<char*>(to), static_cast<std::streamsize>(bytes));
    if (!in_) throw fail("read error at byte " + std::to_string(offset));
  }

  void add_entry(const std::string& name, const nlohmann::json& info, std::uint64_t data_size) {
    Entry e;
    try {
      tensors_.push_back({name, info.at("shape").get<std::vector<std::int64_t>>()});
      const auto offsets = info.at("data_offsets").get<std::vector<std::uint64_t>>();
      if (offsets.size() != 2) throw fail("tensor " + name + ": data_offsets must hold two numbers");
      e = {info.at("dtype").get<std::string>(), offsets[0], offsets[1]};
    } catch (const nlohmann::json::exception& ex) {
      throw fail("tensor " + name + ": bad header entry (" + ex.what() + ")");
    }
    const TensorInfo& t = tensors_.back();
    std::int64_t elements = 1;  // bounded at every factor, so a hostile header cannot overflow the product
    for (std::int64_t d : t.shape) {
      if (d < 0 || d > (std::int64_t{1} << 40) || (d > 0 && elements > (std::int64_t{1} << 40) / d))
        throw fail("tensor " + name + ": shape " + t.shape_text() + " is larger than 2^40 elements");
      elements *= d;
    }
    const std::size_t width = dtype_width(e.dtype);
    if (width == 0) throw fail("tensor " + name + ": dtype " + e.dtype + " is not supported (F32, BF16 or F16)");
    const std::uint64_t want = static_cast<std::uint64_t>(t.elements()) * width;
    if (e.begin > e.end || e.end > data_size || e.end - e.begin != want)
      throw fail("tensor " + name + ": data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
                 ") do not hold " + std::to_string(want) + " bytes of " + e.dtype + " inside the file");
    entries_.push_back(e);
  }

  std::string path_;
  std::ifstream in_;
  std::uint64_t data_start_ = 0;
  std::vector<TensorInfo> tensors_;
  std::vector<Entry> entries_;
};

}  // namespace

Weights load_safetensors(const std::string& path, const jobs::ModelSpec& model) {
  return load_safetensors_files({path}, model, "weights file " + path);
}

namespace {

// Every file's header read and the union of their tensors checked against the model's; the files stay open for
// the copy, so a load parses each header once.
std::vector<SafetensorsFile> open_checked(const std::vector<std::string>& paths, const jobs::ModelSpec& model,
                                          const std::string& shown) {
  std::vector<SafetensorsFile> files;
  std::vector<TensorInfo> found;
  for (const std::string& path : paths) {
    files.emplace_back(path);
    found.insert(found.end(), files.back().tensors().begin(), files.back().tensors().end());
  }
  check_file_tensors(shown, tensor_list(model), found);
  return files;
}

}  // namespace

void check_safetensors_files(const std::vector<std::string>& paths, const jobs::ModelSpec& model,
                             const std::string& shown) {
  open_checked(paths, model, shown);
}

Weights load_safetensors_files(const std::vector<std::string>& paths, const jobs::ModelSpec& model,
                               const std::string& shown) {
  std::vector<SafetensorsFile> files = open_checked(paths, model, shown);
  Weights w = empty_weights(model);
  for (SafetensorsFile& file : files)
    for (std::size_t i = 0; i < file.tensors().size(); ++i) file.copy(i, w.tensor(file.tensors()[i].name));
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
