#pragma once
// The model's weights (docs/engines.md, "The model"): the canonical tensor list of an architecture, one flat
// float32 buffer in that order (what kInit's buffers[0] carries), deterministic random weights from the seed, and
// the weight files (safetensors, HDF5) users bring.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kforge/engine/weight_precision.hpp"
#include "kforge/jobs/engine_spec.hpp"

namespace kforge::kernels::engine {

struct TensorInfo {
  std::string name;                 // Hugging Face Llama names, e.g. "model.layers.0.self_attn.q_proj.weight"
  std::vector<std::int64_t> shape;  // [out, in] for projections, as Hugging Face stores them
  std::int64_t elements() const;
  std::string shape_text() const;  // "[64, 128]"
  bool operator==(const TensorInfo&) const = default;
};

// True when layer l (0-based) of this model is full attention; false for a Kimi Delta Attention layer.
bool is_attention_layer(const jobs::ModelSpec& model, std::int64_t layer);

// Throws std::invalid_argument when the sizes are unusable (non-positive, kv_heads not dividing heads, odd
// head_dim for RoPE, unknown architecture).
void check_model(const jobs::ModelSpec& model);

// Every tensor of the model, in the canonical order of the flat weight buffer.
std::vector<TensorInfo> tensor_list(const jobs::ModelSpec& model);

struct Weights {
  std::vector<float> data;                            // every tensor, concatenated in `tensors` order
  std::vector<TensorInfo> tensors;                    // tensor_list(model)
  std::vector<std::size_t> offsets;                   // offsets[i] = first element of tensors[i] in data
  WeightPrecision precision = WeightPrecision::fp32;  // what the matrices were rounded to (weight_precision.hpp)
  // nullptr when there is no tensor of that name.
  const float* tensor(std::string_view name) const;
  float* tensor(std::string_view name);
};

// Zero-filled weights with the model's tensors and offsets.
Weights empty_weights(const jobs::ModelSpec& model);

// Deterministic from model.weight_seed (its own generator: the same on every platform and library version),
// scaled so activations stay O(1) through many layers and logits spread (docs/engines.md).
Weights random_weights(const jobs::ModelSpec& model);

// model.path: the model folder's safetensors (model_folder.hpp); else model.weights_file: "" -> random_weights;
// *.safetensors (F32, BF16 or F16) or *.h5 / *.hdf5 (float datasets named by tensor). A missing, extra or misshapen
// tensor, or an unsupported dtype, throws std::runtime_error naming the file, the tensor, and the expected and found
// shapes.
Weights load_weights(const jobs::ModelSpec& model);
Weights load_safetensors(const std::string& path, const jobs::ModelSpec& model);
// The tensors of several safetensors files (a model folder's shards) together; `shown` begins every error.
Weights load_safetensors_files(const std::vector<std::string>& paths, const jobs::ModelSpec& model,
                               const std::string& shown);
// What load_safetensors_files checks before it reads a tensor (headers, dtypes, offsets, the model's tensor list),
// reading only the headers: `kforge validate` on a model of several GB.
void check_safetensors_files(const std::vector<std::string>& paths, const jobs::ModelSpec& model,
                             const std::string& shown);
// Throws what load_weights would, reading as little as it can (safetensors: the headers only).
void check_weights(const jobs::ModelSpec& model);
Weights load_weights_h5(const std::string& path, const jobs::ModelSpec& model);

// For the loaders: the tensors a file (or a model folder's shards) holds (name, shape) against the model's; throws
// std::runtime_error beginning with `where` ("weights file F", "model folder D") and naming the first missing, extra,
// repeated or misshapen tensor, with both shapes.
void check_file_tensors(const std::string& where, const std::vector<TensorInfo>& expected,
                        const std::vector<TensorInfo>& found);

// Write every tensor as F32 (safetensors) or as a float32 dataset (HDF5). Throw std::runtime_error on I/O errors.
void write_safetensors(const std::string& path, const Weights& weights);
void write_weights_h5(const std::string& path, const Weights& weights);

}  // namespace kforge::kernels::engine
