// model.path (docs/campaign-schema.md, docs/engines.md "Model folders"): a Hugging Face model folder's config.json
// gives the model, nothing may be set beside it, and what the folder gets wrong is named at model.path with the
// folder's own file, line, column and key.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "config_test_util.hpp"
#include "kforge/engine/model_folder.hpp"
#include "kforge/engine/model_weights.hpp"
#include "kforge/scheduler/driver/campaign_validation.hpp"

namespace kforge::scheduler {
namespace {

namespace fs = std::filesystem;

const char* kConfig = R"({
  "architectures": ["LlamaForCausalLM"],
  "hidden_size": 32, "intermediate_size": 64, "num_attention_heads": 2, "num_key_value_heads": 1,
  "num_hidden_layers": 1, "vocab_size": 64, "tie_word_embeddings": true, "rms_norm_eps": 1e-05
})";

class ModelPath : public ::testing::Test {
 protected:
  fs::path root = fs::temp_directory_path() / ("kforge-model-path-" + std::to_string(::getpid()));
  fs::path folder = root / "models" / "small";
  std::string campaign_file = (root / "campaigns" / "c.yaml").string();

  void SetUp() override {
    fs::remove_all(root);
    fs::create_directories(folder);
    fs::create_directories(root / "campaigns");
    std::ofstream(folder / "config.json") << kConfig;
    kernels::engine::write_safetensors((folder / "model.safetensors").string(),
                                       kernels::engine::random_weights(kernels::engine::model_from_folder(folder)));
  }
  void TearDown() override { fs::remove_all(root); }

  // An engine campaign whose model section is `model` (lines 5 on).
  static std::string campaign(const std::string& model) {
    return "campaign: {name: t, family: engine, backend: host, targets: [host]}\n"
           "space: {parameters: {MC: [16], NC: [256], KC: [64], MR: [4], NR: [16], VEC: [16], UNROLL: [1], PACK: [0], "
           "LOOP_ORDER: [jpi], fuse_qkv: [0], fuse_gate_up: [0], fold_norm: [0], residual_epilogue: [0], prepack: [0], "
           "kv_block: [0], threads: [1], max_batch: [4], prefill_chunk: [64], schedule: [decode_first]}}\n"
           "workload: {requests: 2, prompt_tokens: 4, output_tokens: 2}\n"
           "evaluation: {baselines: [reference]}\n" +
           model;
  }
  std::string error(const std::string& yaml) const {
    return test::config_error_of(
        [&] { validate_campaign(parse_campaign(yaml, campaign_file), embedded_default_site()); });
  }
};

TEST_F(ModelPath, TheFoldersConfigGivesTheModelRelativeToTheCampaignFile) {
  const CampaignConfig c = parse_campaign(campaign("model:\n  path: ../models/small\n"), campaign_file);
  const jobs::ModelSpec& m = c.eval.engine.model;
  EXPECT_EQ(m.architecture, "llama");
  EXPECT_EQ(m.path, folder.string());
  EXPECT_EQ(m.layers, 1);
  EXPECT_EQ(m.hidden, 32);
  EXPECT_EQ(m.kv_heads, 1);
  EXPECT_EQ(m.vocab, 64);
  EXPECT_EQ(error(campaign("model:\n  path: ../models/small\n")), "no error");
}

TEST_F(ModelPath, NothingMaySetTheModelBesideIt) {
  EXPECT_EQ(error(campaign("model:\n  path: ../models/small\n  layers: 2\n")),
            campaign_file +
                ":7:11: model.layers: the model folder's config.json gives the model; layers cannot be "
                "set beside model.path (model.path alone)");
}

TEST_F(ModelPath, AFolderKforgeDoesNotServeIsNamedByItsOwnFileLineAndKey) {
  std::ofstream(folder / "config.json") << R"({
  "architectures": ["GPT2LMHeadModel"],
  "hidden_size": 32
})";
  const std::string e = error(campaign("model:\n  path: ../models/small\n"));
  EXPECT_EQ(e.rfind(campaign_file + ":6:9: model.path: " + (folder / "config.json").string() +
                        ":2:3: architectures: 'GPT2LMHeadModel' is not supported",
                    0),
            0u)
      << e;
  EXPECT_NE(error(campaign("model:\n  path: ../models/none\n")).find("not a folder"), std::string::npos);
}

TEST_F(ModelPath, WeightsThatDoNotFitTheConfigAreNamedBeforeAnythingRuns) {
  std::string text = kConfig;
  text.replace(text.find("\"vocab_size\": 64"), 16, "\"vocab_size\": 65");
  std::ofstream(folder / "config.json") << text;
  const std::string e = error(campaign("model:\n  path: ../models/small\n"));
  EXPECT_NE(e.find(":6:9: model.path: model folder " + folder.string() +
                   ": tensor model.embed_tokens.weight has shape [64, 32], expected [65, 32]"),
            std::string::npos)
      << e;
}

}  // namespace
}  // namespace kforge::scheduler
