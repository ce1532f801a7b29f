// SPDX-License-Identifier: Apache-2.0
// The Rnic top: the socket bindings it makes are the ones docs/architecture.md lists, so the
// drawing of the read path cannot drift from the code.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <systemc>

#include "model/rnic/rnic.h"

using namespace rnic;

namespace {

// The lines "from -> to" of the fenced block after the "<!-- bindings" marker.
std::vector<std::string> documented_bindings(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::vector<std::string> lines;
  std::string line;
  enum { Before, Marker, Inside, Done } state = Before;
  while (state != Done && std::getline(in, line)) {
    if (state == Before && line.rfind("<!-- bindings", 0) == 0) {
      state = Marker;
    } else if (state == Marker && line.rfind("```", 0) == 0) {
      state = Inside;
    } else if (state == Inside) {
      if (line.rfind("```", 0) == 0) {
        state = Done;
      } else if (!line.empty()) {
        lines.push_back(line);
      }
    }
  }
  REQUIRE(state == Done);
  return lines;
}

}  // namespace

TEST_CASE("the Rnic's socket bindings are the ones docs/architecture.md lists") {
  RnicConfig config;
  Rnic rnic("rnic", config, 0);
  std::vector<std::string> bound;
  for (const Rnic::Binding& b : rnic.bindings()) bound.push_back(b.from + " -> " + b.to);
  REQUIRE(bound.size() > 40);  // every unit's sockets, not an empty record
  const std::vector<std::string> documented =
      documented_bindings(std::string(RNICSIM_SOURCE_DIR) + "/docs/architecture.md");

  std::vector<std::string> code_only, doc_only;
  for (const std::string& b : bound)
    if (std::find(documented.begin(), documented.end(), b) == documented.end())
      code_only.push_back(b);
  for (const std::string& d : documented)
    if (std::find(bound.begin(), bound.end(), d) == bound.end()) doc_only.push_back(d);
  std::ostringstream diff;
  for (const std::string& b : code_only)
    diff << "bound in model/rnic/rnic.cpp, not listed: " << b << "\n";
  for (const std::string& d : doc_only) diff << "listed, not bound: " << d << "\n";
  INFO(diff.str());
  CHECK(code_only.empty());
  CHECK(doc_only.empty());
  CHECK(documented.size() == bound.size());  // no line listed twice
}
