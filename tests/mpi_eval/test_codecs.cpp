// The text formats between processes: result frames, child reports, records and baselines round-trip exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "cascade.hpp"
#include "child_protocol.hpp"
#include "frame.hpp"
#include "kv_text.hpp"
#include "record_codec.hpp"

using namespace kforge;
using namespace kforge::mpi_eval;

namespace {

const std::string kAwkwardText = std::string("line one\nline two\\n not an escape\r\n=equals=\0nul", 47);

jobs::EvalRecord full_record() {
  jobs::EvalRecord r;
  r.candidate_id = "0123456789abcdef0123456789abcdef";
  r.family = "gemm";
  r.backend = "host";
  r.params = "KC=256;MC=64;order=\"ikj\"";
  r.parents = {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"};
  r.op = "crossover";
  r.generation = 7;
  r.island = 2;
  r.target = "hopper";
  r.status = jobs::Status::cheat_detected;
  r.time_median_ms = 1.0 / 3.0;
  r.time_min_ms = 0.1;
  r.time_spread_rel = 1e-300;
  r.time_spread_iqr = 0.0625;
  r.sample_count = 3;
  r.timing_noisy = true;  // the default is false: a codec that drops it fails the round trip
  r.samples_ms = {0.1, 1.0 / 3.0, 2.5e-7};
  r.speedup = std::numeric_limits<double>::infinity();
  r.max_abs_error = jobs::kNaN;
  r.max_rel_error = -0.0;
  r.compile_ms = 812.25;
  r.registers = 96;
  r.shared_bytes = 49152;
  r.spill_bytes = 0;
  r.host = "node017";
  r.gpu_model = "NVIDIA H100 80GB HBM3";
  r.slurm_job_id = 123456789012;
  r.slurm_array_task = 31;
  r.rank = 3;
  r.evaluated_at = "2026-12-02T10:14:42Z";
  r.harness_ms = 1234.5;
  r.evidence = kAwkwardText;
  r.failed_case = "M=7 N=5 K=3 lda=3 ldb=5 ldc=5 seed=18446744073709551615";
  r.source = "extern \"C\" void kforge_gemm() {}\n// \\ trailing backslash \\";
  r.ptx = ".version 8.8\n.target sm_100a\n.visible .entry kforge_gemm()\n{\n\tret;\n}\n";
  r.metrics = {{"output_tokens_per_s", "tokens/s", 812.0625}, {"ttft_p99_ms", "ms", jobs::kNaN}, {"op=\n", "", -0.0}};
  return r;
}

}  // namespace

const FrameKey kKey = fresh_frame_key();

TEST(Frame, ValidFrameRoundTrips) {
  const DecodedFrame d = decode_frame(encode_frame(kAwkwardText, kKey), kKey);
  ASSERT_EQ(d.state, FrameState::valid) << d.problem;
  EXPECT_EQ(d.payload, kAwkwardText);
}

TEST(Frame, FlippedByteFailsAuthentication) {
  std::string bytes = encode_frame("the payload", kKey);
  bytes.back() ^= 0x01;
  const DecodedFrame d = decode_frame(bytes, kKey);
  EXPECT_EQ(d.state, FrameState::corrupt);
  EXPECT_NE(d.problem.find("not authenticated"), std::string::npos) << d.problem;
}

TEST(Frame, TruncatedAndTrailingBytesAreCorrupt) {
  const std::string bytes = encode_frame("the payload", kKey);
  EXPECT_EQ(decode_frame(bytes.substr(0, bytes.size() - 1), kKey).state, FrameState::corrupt);
  EXPECT_EQ(decode_frame(bytes.substr(0, 5), kKey).state, FrameState::corrupt);
  EXPECT_EQ(decode_frame(bytes + "x", kKey).state, FrameState::corrupt);
  EXPECT_EQ(decode_frame("", kKey).state, FrameState::empty);
}

// A frame cut to a shorter payload with its length field rewritten to match still carries the old tag.
TEST(Frame, TruncatedPayloadWithPatchedLengthFailsAuthentication) {
  std::string bytes = encode_frame("ok; samples 0.99 0.98 0.97", kKey);
  bytes.resize(bytes.size() - 5);
  const std::uint64_t length = bytes.size() - kFrameHeaderBytes;
  for (int i = 0; i < 8; ++i) bytes[4 + i] = static_cast<char>((length >> (8 * i)) & 0xffu);
  EXPECT_NE(decode_frame(bytes, kKey).problem.find("not authenticated"), std::string::npos);
}

// A candidate that writes a well-formed frame does not hold this run's key: whatever tag it computes is refused.
TEST(Frame, FrameForgedWithoutTheKeyIsRefused) {
  const FrameKey guessed{};  // all zeros, or any key that is not this run's
  const DecodedFrame d = decode_frame(encode_frame("verify=ok;samples_ms=0.2", guessed), kKey);
  EXPECT_EQ(d.state, FrameState::corrupt);
  EXPECT_NE(d.problem.find("not authenticated"), std::string::npos) << d.problem;
}

// Every child gets a fresh key, so an honest frame recorded from one run is refused by the next.
TEST(Frame, FrameReplayedFromAnotherRunIsRefused) {
  const FrameKey earlier_run = fresh_frame_key(), this_run = fresh_frame_key();
  ASSERT_NE(earlier_run, this_run);
  EXPECT_EQ(decode_frame(encode_frame("an honest report", earlier_run), this_run).state, FrameState::corrupt);
}

TEST(Frame, HmacMatchesTheRfc4231TestCase2Construction) {
  // RFC 4231 case 2 uses a 4-byte key ("Jefe"); zero-padded to 32 bytes it is the same HMAC key.
  FrameKey jefe{};
  jefe[0] = 'J', jefe[1] = 'e', jefe[2] = 'f', jefe[3] = 'e';
  const auto tag = hmac_sha256(jefe, "what do ya want for nothing?");
  const std::array<std::uint8_t, 4> expected_start{0x5b, 0xdc, 0xc1, 0x46};
  EXPECT_TRUE(std::equal(expected_start.begin(), expected_start.end(), tag.begin()));
}

TEST(KvText, EscapesRoundTripAndBadEscapesAreRejected) {
  EXPECT_EQ(unescape_value(escape_value(kAwkwardText)), kAwkwardText);
  EXPECT_EQ(escape_value(kAwkwardText).find('\n'), std::string::npos);
  EXPECT_THROW(unescape_value("dangling\\"), std::invalid_argument);
  EXPECT_THROW(unescape_value("\\q"), std::invalid_argument);
}

TEST(ChildProtocol, VerifiedAndTimedReportRoundTrips) {
  ChildReport r;
  r.verify = {jobs::Status::ok, 1.5e-7, 3.0e-8, "all 9 shapes agree", ""};
  r.time = kernels::TimeResult{jobs::Status::cheat_detected,
                               {1.25, 1.0 / 7.0, 3e-9},
                               "faster than possible\nby far",
                               {{"output_tokens_per_s", "tokens/s", 1234.5}, {"op_share.mlp", "1", 1.0 / 3.0}}};
  const ChildReport back = decode_child_report(encode_child_report(r));
  EXPECT_EQ(back.verify.status, r.verify.status);
  EXPECT_EQ(back.verify.max_abs_error, r.verify.max_abs_error);
  EXPECT_EQ(back.verify.max_rel_error, r.verify.max_rel_error);
  EXPECT_EQ(back.verify.evidence, r.verify.evidence);
  ASSERT_TRUE(back.time.has_value());
  EXPECT_EQ(back.time->status, r.time->status);
  EXPECT_EQ(back.time->samples_ms, r.time->samples_ms);
  EXPECT_EQ(back.time->evidence, r.time->evidence);
  EXPECT_EQ(back.time->metrics, r.time->metrics);
}

TEST(ChildProtocol, FailedVerificationCarriesNoTiming) {
  ChildReport r;
  r.verify = {jobs::Status::wrong_result, jobs::kNaN, jobs::kNaN, "C[3,4] = nan, expected 1.5",
              "M=7 N=5 K=3 lda=3 ldb=5 ldc=5 seed=9"};
  const ChildReport back = decode_child_report(encode_child_report(r));
  EXPECT_EQ(back.verify.status, jobs::Status::wrong_result);
  EXPECT_EQ(back.verify.failed_case, r.verify.failed_case);  // joins the campaign's validation set
  EXPECT_TRUE(std::isnan(back.verify.max_abs_error));
  EXPECT_FALSE(back.time.has_value());
}

TEST(ChildProtocol, GarbledReportsAreRejectedNamingTheProblem) {
  EXPECT_THROW(decode_child_report("not a report"), std::invalid_argument);
  std::string text = encode_child_report(ChildReport{});
  text.replace(text.find("wrong_result"), 12, "great_result");
  try {
    decode_child_report(text);
    FAIL() << "an unknown status was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("verify.status"), std::string::npos) << e.what();
  }
}

TEST(RecordCodec, EveryFieldRoundTrips) {
  const jobs::EvalRecord r = full_record();
  const jobs::EvalRecord back = decode_record(encode_record(r));
  EXPECT_EQ(back, r);
  EXPECT_TRUE(std::signbit(back.max_rel_error));
  EXPECT_EQ(back.samples_ms, r.samples_ms);  // bit-exact doubles, not just "equal enough"
}

TEST(RecordCodec, DefaultRecordRoundTrips) {
  const jobs::EvalRecord r;
  EXPECT_EQ(decode_record(encode_record(r)), r);
}

TEST(RecordCodec, MissingFieldIsNamed) {
  std::string text = encode_record(full_record());
  const auto at = text.find("\nrank=");
  text.erase(at, text.find('\n', at + 1) - at);
  try {
    decode_record(text);
    FAIL() << "a record without a rank was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'rank'"), std::string::npos) << e.what();
  }
}

TEST(RecordCodec, BaselinesRoundTrip) {
  std::vector<jobs::Baseline> b(2);
  b[0] = {"reference", 12.5, 12.0, 5, "node1", 3};
  b[1] = {"openblas", 0.25, 0.2, 20, "node1", 3};
  EXPECT_EQ(decode_baselines(encode_baselines(b)), b);
  EXPECT_TRUE(decode_baselines(encode_baselines({})).empty());
}

TEST(CandidateSeed, DiffersPerCandidateAndIsStablePerTask) {
  const std::string a = "0123456789abcdef0123456789abcdef", b = "fedcba9876543210fedcba9876543210";
  EXPECT_EQ(candidate_seed(42, a), candidate_seed(42, a));
  EXPECT_NE(candidate_seed(42, a), candidate_seed(42, b));
  EXPECT_NE(candidate_seed(42, a), candidate_seed(43, a));
}
