// SPDX-License-Identifier: Apache-2.0
// "Did you mean": the distance, which names count as close, and the message parts.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "app/scenario/suggest.h"

using namespace rnic::app;
using Names = std::vector<std::string>;

TEST_CASE("edit distance counts a swap of neighbours as one edit", "[app]") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("read", "read") == 0);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("raed", "read") == 1);      // transposition
  CHECK(edit_distance("lenght", "length") == 1);  // transposition
  CHECK(edit_distance("reed", "read") == 1);      // substitution
  CHECK(edit_distance("red", "read") == 1);       // insertion
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("ca", "abc") == 3);     // optimal string alignment: no edit of a swapped pair
  CHECK(edit_distance("Read", "read") == 1);  // case-sensitive: closest_names folds case
  // Past the limit the count stops at limit + 1, early or late.
  CHECK(edit_distance("a", "abcdefgh", 2) == 3);
  CHECK(edit_distance("abcdefgh", "zyxwvuts", 2) == 3);
  CHECK(edit_distance("abcdefgh", "abcdefgz", 2) == 1);
}

TEST_CASE("closest names: typos within a third of the length", "[app]") {
  const Names ops = {"read", "write", "read_stream", "write_stream", "create_qp", "connect"};
  CHECK(closest_names("raed_stream", ops) == Names{"read_stream"});
  CHECK(closest_names("wirte", ops) == Names{"write"});
  CHECK(closest_names("connect_qp", ops) == Names{"connect"});
  CHECK(closest_names("frobnicate", ops).empty());
  // A valid name gets no suggestion, not even a neighbour; empty and huge names get none.
  CHECK(closest_names("read", ops).empty());
  CHECK(closest_names("pcie.gen", {"pcie.gen", "pcie.mps"}).empty());
  CHECK(closest_names("", ops).empty());
  CHECK(closest_names(std::string(100000, 'r'), ops).empty());
  // Short names: replacing every letter is no typo.
  CHECK(closest_names("C", {"A", "B"}).empty());
  CHECK(closest_names("qpX", {"qpA", "pdA", "cqA"}) == Names{"qpA"});
}

TEST_CASE("closest names: case and separators count as the same name", "[app]") {
  const Names keys = {"pcie.mrrs", "pcie.mps", "port.mtu", "mtt.cache_entries"};
  CHECK(closest_names("PCIE.MRRS", keys) == Names{"pcie.mrrs"});
  CHECK(closest_names("pcie-mrrs", keys) == Names{"pcie.mrrs"});
  CHECK(closest_names("pcie_mrrs", keys) == Names{"pcie.mrrs"});
  CHECK(closest_names("mtt.cache-entries", keys) == Names{"mtt.cache_entries"});
  CHECK(closest_names("--no_summary", {"--quiet", "--no-summary"}) == Names{"--no-summary"});
  CHECK(closest_names("Status_Success", {"STATUS_SUCCESS", "STATUS_PENDING"}) ==
        Names{"STATUS_SUCCESS"});
  // A case or separator match beats a nearer typo.
  CHECK(closest_names("Read", {"reed", "read"}) == Names{"read"});
}

TEST_CASE("closest names: a name missing its leading words, or with extra ones", "[app]") {
  const Names keys = {"pcie.gen", "pcie.lanes", "mtt.cache_entries", "mpt.cache_entries"};
  CHECK(closest_names("gen", keys) == Names{"pcie.gen"});
  CHECK(closest_names("cache_entries", keys) == Names{"mtt.cache_entries", "mpt.cache_entries"});
  CHECK(closest_names("SUCCESS", {"STATUS_SUCCESS", "STATUS_PENDING"}) == Names{"STATUS_SUCCESS"});
  CHECK(closest_names("NDK_OP_FLAG_INLINE", {"INLINE", "DEFER"}) == Names{"INLINE"});
  // Words must be whole: "nes" is not the end of "pcie.lanes", nor "ache_entries" of a key.
  CHECK(closest_names("nes", keys).empty());
  CHECK(closest_names("ache_entries", keys).empty());
}

TEST_CASE("closest names: too many equally close names help nobody", "[app]") {
  const Names four = {"a.cycles", "b.cycles", "c.cycles", "d.cycles"};
  CHECK(closest_names("cycles", four).empty());
  CHECK(closest_names("cycles", {"a.cycles", "b.cycles", "c.cycles"}).size() == 3);
  // Duplicates in the valid list (an option row per command group) are named once.
  CHECK(closest_names("--qiet", {"--quiet", "--quiet", "--out"}) == Names{"--quiet"});
}

TEST_CASE("did_you_mean and unknown_name: the message parts", "[app]") {
  const Names ops = {"read_stream", "write_stream", "dma_bench"};
  CHECK(did_you_mean("raed_stream", ops) == "; did you mean \"read_stream\"?");
  CHECK(did_you_mean("frobnicate", ops) == "");
  CHECK(did_you_mean("frobnicate", ops, " (see `rnicsim params`)") == " (see `rnicsim params`)");
  CHECK(did_you_mean("cache_entries", {"mtt.cache_entries", "mpt.cache_entries"}) ==
        "; did you mean \"mtt.cache_entries\" or \"mpt.cache_entries\"?");
  CHECK(did_you_mean("x.cycles", {"a.cycles", "b.cycles", "c.cycles"}) ==
        "; did you mean \"a.cycles\", \"b.cycles\" or \"c.cycles\"?");
  CHECK(unknown_name("op", "raed_stream", ops) ==
        "unknown op \"raed_stream\"; did you mean \"read_stream\"?");
  CHECK(unknown_name("op", "zz", ops, name_list("known", ops)) ==
        "unknown op \"zz\" (known: read_stream, write_stream, dma_bench)");
  // The name is quoted as every message quotes names: control characters escaped.
  CHECK(unknown_name("op", "a\nb", ops) == "unknown op \"a\\x0ab\"");
  CHECK(name_list("nodes", {"A"}) == " (nodes: A)");
  CHECK(strings({"a", "b"}) == Names{"a", "b"});
}
