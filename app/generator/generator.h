// SPDX-License-Identifier: Apache-2.0
// Differential testing: `rnicsim gen` writes constrained-random scenarios whose expectations
// come from the reference model (app/reference/model.h); `rnicsim expect` recomputes the
// expectations of an existing scenario (scripts/difftest shrinks failing files with it).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "app/reference/model.h"

namespace rnic::app {

using OrderedJson = nlohmann::ordered_json;

struct GenOptions {
  uint64_t seed = 1;
  uint64_t steps = 40;  // random actions (each writes one or more steps, polls not counted)
  RefOptions ref;
  // Coverage bins (or prefixes of bins, app/coverage/coverage.h) and weights: a choice that
  // can hit a bin matching a pattern has its weight multiplied by that pattern's weight.
  std::vector<std::pair<std::string, double>> weights;
};
constexpr double kFocusWeight = 50;  // gen --focus BIN: the weight of BIN

// The weights of a --weights file ({"bin-or-prefix": weight, ...}) added to `out`; false with
// `error` set for anything else (a pattern that names no bin, a negative weight).
bool parse_weights(const nlohmann::json& j, std::vector<std::pair<std::string, double>>* out,
                   std::string* error);

// A generated scenario (see generator.cpp for what it exercises and the timing rules it
// keeps). Throws std::logic_error when the generator breaks its own rules (a bug).
OrderedJson generate_scenario(const GenOptions& options);

// The scenario `text` (a valid file) with every expectation recomputed by the reference
// model: each call's `expect` (dropped when success), each poll's `count` and `expect` (all
// completions pending at that point), and, replacing every expect_memory step, a check of
// every byte of every buffer at the end. Steps whose outcome may depend on timing go to
// `races` ("steps[12] (read): ..."). Throws ScenarioError (invalid file) or RefUnsupported.
OrderedJson refill_expectations(const std::string& text, const RefOptions& options,
                                std::vector<std::string>* races);

// One scenario file: top-level keys one per line, one step per line.
std::string format_scenario(const OrderedJson& scenario);

// --- shared by the generator and refill_expectations ---

// A poll step that takes `completions` from `cq` (count 0 when there are none).
OrderedJson poll_step(const std::string& cq, const std::vector<refm::Completion>& completions);
// expect_memory steps that cover every byte of `bytes` (a buffer from offset 0): fill runs
// where the bytes are constant or incrementing, hex bytes elsewhere.
std::vector<OrderedJson> memory_checks(const std::string& buffer,
                                       const std::vector<uint8_t>& bytes);

}  // namespace rnic::app
