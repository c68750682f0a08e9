#pragma once
// A model as people have it (docs/engines.md, "Model folders"): a Hugging Face model folder with config.json and
// its weights as one safetensors file or shards listed by model.safetensors.index.json (F32, BF16 or F16).
// config.json says which architecture and sizes; kforge runs the architectures whose math docs/engines.md states
// (LlamaForCausalLM, MistralForCausalLM without a sliding window) and refuses any other, and any key whose value
// would change that math, naming the file, the line and column of the key, and the key.
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "kforge/jobs/engine_spec.hpp"

namespace kforge::kernels::engine {

// An error of a model folder: "DIR/config.json:LINE:COLUMN: key: why" (or "DIR: why" for a missing file).
class ModelFolderError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The model config.json describes (architecture, sizes, tied head, RoPE theta, norm epsilon), with path = `dir`.
// Throws ModelFolderError.
jobs::ModelSpec model_from_folder(const std::filesystem::path& dir);

// The folder's weight files: model.safetensors, or every shard model.safetensors.index.json's weight_map names
// (in the index's order, each once). Throws ModelFolderError when there are none or a listed shard is missing.
std::vector<std::string> model_weight_files(const std::filesystem::path& dir);

}  // namespace kforge::kernels::engine
