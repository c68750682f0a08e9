// Hugging Face model folders (kernels/engine/src/model_folder.cpp, docs/engines.md "Model folders"): config.json
// read into the model, every refused key named with its line and column, and weights from one file or shards.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine_model_support.hpp"
#include "kforge/engine/model_folder.hpp"

namespace kforge::kernels::engine {
namespace {

namespace fs = std::filesystem;

// SmolLM-135M's config.json as its hub folder has it (sizes shrunk): the keys real folders carry.
const char* kLlamaConfig = R"({
  "architectures": ["LlamaForCausalLM"],
  "attention_bias": false,
  "bos_token_id": 0,
  "hidden_act": "silu",
  "hidden_size": 64,
  "intermediate_size": 96,
  "max_position_embeddings": 2048,
  "mlp_bias": false,
  "model_type": "llama",
  "num_attention_heads": 4,
  "num_hidden_layers": 2,
  "num_key_value_heads": 2,
  "pretraining_tp": 1,
  "rms_norm_eps": 1e-05,
  "rope_scaling": null,
  "rope_theta": 10000.0,
  "tie_word_embeddings": true,
  "torch_dtype": "bfloat16",
  "vocab_size": 256
})";

class ModelFolder : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() / ("kforge-model-folder-" + std::to_string(::getpid()));
  void SetUp() override {
    fs::remove_all(dir);
    fs::create_directories(dir);
    config(kLlamaConfig);
  }
  void TearDown() override { fs::remove_all(dir); }
  void config(const std::string& text) const { std::ofstream(dir / "config.json") << text; }
  // kLlamaConfig with one line replaced ("key": value, the whole line).
  void config_with(const std::string& key, const std::string& line) const {
    std::string text = kLlamaConfig;
    const std::size_t at = text.find("\"" + key + "\"");
    if (at == std::string::npos) {
      text.insert(text.find('{') + 1, "\n  " + line + ",");
    } else {
      text.replace(at, text.find('\n', at) - at, line + (text.find('\n', at) == text.rfind('\n') ? "" : ","));
    }
    config(text);
  }
  std::string error() const {
    try {
      model_from_folder(dir);
    } catch (const ModelFolderError& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(ModelFolder, ConfigJsonGivesTheModel) {
  const jobs::ModelSpec m = model_from_folder(dir);
  EXPECT_EQ(m.architecture, "llama");
  EXPECT_EQ(m.path, dir.string());
  EXPECT_EQ(m.layers, 2);
  EXPECT_EQ(m.hidden, 64);
  EXPECT_EQ(m.heads, 4);
  EXPECT_EQ(m.kv_heads, 2);
  EXPECT_EQ(m.head_dim, 16);  // hidden / heads when config.json has no head_dim
  EXPECT_EQ(m.mlp_hidden, 96);
  EXPECT_EQ(m.vocab, 256);
  EXPECT_TRUE(m.tied_embeddings);
  EXPECT_DOUBLE_EQ(m.norm_eps, 1e-5);
  config_with("tie_word_embeddings", R"("head_dim": 24, "tie_word_embeddings": false)");
  const jobs::ModelSpec untied = model_from_folder(dir);
  EXPECT_FALSE(untied.tied_embeddings);
  EXPECT_EQ(untied.head_dim, 24);
  EXPECT_FALSE(untied.qkv_bias);
  config_with("architectures", R"("architectures": ["Qwen2ForCausalLM"], "use_sliding_window": false)");
  const jobs::ModelSpec qwen = model_from_folder(dir);
  EXPECT_TRUE(qwen.qkv_bias);  // Qwen2's q, k and v projections have biases
  const auto tensors = tensor_list(qwen);
  EXPECT_TRUE(std::any_of(tensors.begin(), tensors.end(), [](const TensorInfo& t) {
    return t.name == "model.layers.0.self_attn.k_proj.bias" && t.shape == std::vector<std::int64_t>{32};
  }));
  EXPECT_FALSE(qwen.qk_norm);
  config_with("architectures", R"("architectures": ["Qwen3ForCausalLM"], "head_dim": 32, "use_sliding_window": false)");
  const jobs::ModelSpec qwen3 = model_from_folder(dir);
  EXPECT_TRUE(qwen3.qk_norm);  // Qwen3 normalises each head of q and k, and has no biases
  EXPECT_FALSE(qwen3.qkv_bias);
  const auto qwen3_tensors = tensor_list(qwen3);
  EXPECT_TRUE(std::any_of(qwen3_tensors.begin(), qwen3_tensors.end(), [](const TensorInfo& t) {
    return t.name == "model.layers.1.self_attn.q_norm.weight" && t.shape == std::vector<std::int64_t>{32};
  }));
}

TEST_F(ModelFolder, RefusedKeysAreNamedWithTheirLineAndColumn) {
  const std::string file = (dir / "config.json").string();
  config_with("architectures", R"("architectures": ["GPT2LMHeadModel"])");
  EXPECT_EQ(error().rfind(file + ":2:3: architectures: 'GPT2LMHeadModel' is not supported", 0), 0u) << error();
  config_with("attention_bias", R"("attention_bias": true)");
  EXPECT_EQ(error().rfind(file + ":3:3: attention_bias:", 0), 0u) << error();
  config_with("hidden_act", R"("hidden_act": "gelu")");
  EXPECT_EQ(error().rfind(file + ":5:3: hidden_act:", 0), 0u) << error();
  config_with("rope_scaling", R"("rope_scaling": {"rope_type": "yarn", "factor": 4.0})");
  EXPECT_EQ(error().rfind(file + ":16:3: rope_scaling: RoPE scaling 'yarn' is not supported", 0), 0u) << error();
  config_with("num_key_value_heads", R"("num_key_value_heads": 3)");
  EXPECT_EQ(error().rfind(file + ":13:3: num_key_value_heads: must divide", 0), 0u) << error();
  config_with("hidden_size", R"("hidden_size": "64")");
  EXPECT_EQ(error().rfind(file + ":6:3: hidden_size: must be a positive integer", 0), 0u) << error();
  config_with("architectures", R"("architectures": ["MistralForCausalLM"], "sliding_window": 4096)");
  EXPECT_NE(error().find("sliding_window: sliding-window attention is not supported"), std::string::npos) << error();
  config(R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 64,)");
  EXPECT_EQ(error().rfind(file + ":1:", 0), 0u) << error();
  EXPECT_NE(error().find("not JSON"), std::string::npos) << error();
  config(R"({"architectures": ["LlamaForCausalLM"]})");
  EXPECT_NE(error().find("num_hidden_layers: missing"), std::string::npos) << error();
  fs::remove(dir / "config.json");
  EXPECT_NE(error().find("config.json: cannot read it"), std::string::npos) << error();
}

// Llama 3's RoPE scaling (Llama 3.1 and 3.2 folders) is read into the model; a missing or unknown key of it, or
// another type, is refused by name.
TEST_F(ModelFolder, Llama3RopeScalingIsReadAndItsKeysChecked) {
  const std::string llama3 = R"("rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
    "original_max_position_embeddings": 8192, "rope_type": "llama3"})";
  config_with("rope_scaling", llama3);
  const jobs::ModelSpec m = model_from_folder(dir);
  EXPECT_EQ(m.rope_scaling_factor, 32.0);
  EXPECT_EQ(m.rope_low_freq_factor, 1.0);
  EXPECT_EQ(m.rope_high_freq_factor, 4.0);
  EXPECT_EQ(m.rope_original_context, 8192);
  config_with("rope_scaling", R"("rope_scaling": {"rope_type": "default"})");
  EXPECT_EQ(model_from_folder(dir).rope_scaling_factor, 0.0);
  const std::string file = (dir / "config.json").string();
  std::string missing = llama3;
  missing.replace(missing.find(R"("low_freq_factor": 1.0,)"), 23, "");
  config_with("rope_scaling", missing);
  EXPECT_EQ(error().rfind(file + ":16:3: rope_scaling.low_freq_factor: missing", 0), 0u) << error();
  std::string unknown = llama3;
  unknown.replace(unknown.find(R"("factor")"), 8, R"("attention_factor": 1.0, "factor")");
  config_with("rope_scaling", unknown);
  EXPECT_EQ(error().rfind(file + ":16:20: rope_scaling.attention_factor: unknown key", 0), 0u) << error();
  std::string inverted = llama3;
  inverted.replace(inverted.find(R"("high_freq_factor": 4.0)"), 23, R"("high_freq_factor": 0.5)");
  config_with("rope_scaling", inverted);
  EXPECT_NE(error().find("rope_scaling.high_freq_factor: must be greater than low_freq_factor"), std::string::npos)
      << error();
}

// Weights with only the tensors named in `names`, as Weights::data would hold them for a shard.
Weights part_of(const Weights& all, const std::vector<std::string>& names) {
  Weights part;
  for (const auto& t : all.tensors) {
    if (std::find(names.begin(), names.end(), t.name) == names.end()) continue;
    part.offsets.push_back(part.data.size());
    part.tensors.push_back(t);
    part.data.insert(part.data.end(), all.tensor(t.name), all.tensor(t.name) + t.elements());
  }
  return part;
}

TEST_F(ModelFolder, ShardsListedByTheIndexAreReadAsOneModel) {
  const jobs::ModelSpec m = model_from_folder(dir);
  const Weights want = random_weights(m);
  std::vector<std::string> first, second;
  nlohmann::json index = {{"metadata", {{"total_size", 0}}}, {"weight_map", nlohmann::json::object()}};
  for (std::size_t i = 0; i < want.tensors.size(); ++i) {
    const std::string& name = want.tensors[i].name;
    (i < want.tensors.size() / 2 ? first : second).push_back(name);
    index["weight_map"][name] =
        i < want.tensors.size() / 2 ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
  }
  write_safetensors((dir / "model-00001-of-00002.safetensors").string(), part_of(want, first));
  write_safetensors((dir / "model-00002-of-00002.safetensors").string(), part_of(want, second));
  std::ofstream(dir / "model.safetensors.index.json") << index.dump(2);
  EXPECT_EQ(model_weight_files(dir).size(), 2u);
  EXPECT_NO_THROW(check_weights(m));
  EXPECT_EQ(load_weights(m).data, want.data);

  // A tensor in both shards, and a shard the index names that is not there.
  std::vector<std::string> second_and_one_more = second;
  second_and_one_more.push_back(first[0]);
  write_safetensors((dir / "model-00002-of-00002.safetensors").string(), part_of(want, second_and_one_more));
  try {
    check_weights(m);
    ADD_FAILURE() << "a folder with a tensor in two shards was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("model folder " + dir.string() + ": tensor " + first[0] + " twice"),
              std::string::npos)
        << e.what();
  }
  fs::remove(dir / "model-00002-of-00002.safetensors");
  EXPECT_THROW(model_weight_files(dir), ModelFolderError);
}

TEST_F(ModelFolder, Float16WeightsAreReadExactly) {
  const jobs::ModelSpec m = model_from_folder(dir);
  const Weights shape = empty_weights(m);
  // 0x3e00 = 1.5, 0xc000 = -2, 0x0001 = the smallest subnormal 2^-24, 0x7bff = 65504 (the largest half).
  const std::uint16_t halves[4] = {0x3e00, 0xc000, 0x0001, 0x7bff};
  const float floats[4] = {1.5f, -2.0f, std::ldexp(1.0f, -24), 65504.0f};
  nlohmann::json header;
  std::string bytes;
  std::vector<float> want;
  for (const auto& t : shape.tensors) {
    header[t.name] = {
        {"dtype", "F16"}, {"shape", t.shape}, {"data_offsets", {bytes.size(), bytes.size() + 2 * t.elements()}}};
    for (std::int64_t e = 0; e < t.elements(); ++e) {
      bytes.append(reinterpret_cast<const char*>(&halves[e % 4]), 2);
      want.push_back(floats[e % 4]);
    }
  }
  const std::string text = header.dump();
  std::ofstream out(dir / "model.safetensors", std::ios::binary);
  for (int i = 0; i < 8; ++i) out.put(static_cast<char>((text.size() >> (8 * i)) & 0xff));
  out << text << bytes;
  out.close();
  EXPECT_EQ(load_weights(m).data, want);
}

}  // namespace
}  // namespace kforge::kernels::engine
