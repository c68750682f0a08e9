// Candidate ids: content hashes that must stay stable across builds, hosts and releases.
#include <gtest/gtest.h>

#include <string>

#include "kforge/jobs/candidate.hpp"

using kforge::jobs::Candidate;
using kforge::jobs::candidate_id;
using kforge::jobs::sha256_hex;

namespace {

Candidate fixed_candidate() {
  Candidate c;
  c.family = "gemm";
  c.backend = "host";
  c.genome = kforge::jobs::Genome::from_text("KC=256;MC=64;order=\"ikj\"");
  c.compile_flags = "-funroll-loops";
  return c;
}

}  // namespace

TEST(JobsSha256, KnownVectors) {
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(JobsSha256, PaddingBoundaries) {
  // Lengths around the 56-byte padding limit and the 64-byte block (values from Python's hashlib).
  EXPECT_EQ(sha256_hex(std::string(55, 'a')), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(sha256_hex(std::string(56, 'a')), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  EXPECT_EQ(sha256_hex(std::string(64, 'a')), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
  EXPECT_EQ(sha256_hex(std::string(65, 'a')), "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(JobsCandidateId, FixedCandidateHasFixedId) {
  // sha256("4:gemm" "24:KC=256;MC=64;order=\"ikj\"" "0:" "4:host" "14:-funroll-loops")[:32], computed by hashlib.
  // If this changes, every archived id changes: that needs a schema_version bump, not a new constant.
  EXPECT_EQ(candidate_id(fixed_candidate()), "b495e225d057d3a923dd5654931c7e1b");
}

TEST(JobsCandidateId, LineageDoesNotChangeId) {
  Candidate a = fixed_candidate();
  Candidate b = fixed_candidate();
  b.parents = {"0123456789abcdef0123456789abcdef"};
  b.op = "mutation";
  b.generation = 7;
  b.island = 3;
  b.id = "whatever";
  EXPECT_EQ(candidate_id(a), candidate_id(b));
}

TEST(JobsCandidateId, EveryIdentityFieldChangesId) {
  const std::string base = candidate_id(fixed_candidate());
  auto changed = [&](auto edit) {
    Candidate c = fixed_candidate();
    edit(c);
    return candidate_id(c);
  };
  EXPECT_NE(changed([](Candidate& c) { c.family = "gemv"; }), base);
  EXPECT_NE(changed([](Candidate& c) { c.backend = "cuda"; }), base);
  EXPECT_NE(changed([](Candidate& c) { c.genome.params["KC"] = std::int64_t{128}; }), base);
  EXPECT_NE(changed([](Candidate& c) { c.genome.params["KC"] = 256.0; }), base);  // type is identity too
  EXPECT_NE(changed([](Candidate& c) { c.source = "void f() {}\n"; }), base);
  EXPECT_NE(changed([](Candidate& c) { c.compile_flags = "-O2"; }), base);
}

TEST(JobsCandidateId, FieldBoundariesAreNotAmbiguous) {
  Candidate a = fixed_candidate();
  Candidate b = fixed_candidate();
  a.backend = "host";
  a.compile_flags = "-O2";
  b.backend = "host-O2";  // same concatenation, different fields
  b.compile_flags = "";
  EXPECT_NE(candidate_id(a), candidate_id(b));
}

TEST(JobsCandidateId, AssignIdSetsLowerHex32) {
  Candidate c = fixed_candidate();
  const std::string& id = kforge::jobs::assign_id(c);
  EXPECT_EQ(&id, &c.id);
  ASSERT_EQ(c.id.size(), 32u);
  EXPECT_EQ(c.id.find_first_not_of("0123456789abcdef"), std::string::npos);
}
