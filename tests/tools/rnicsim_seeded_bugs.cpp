// SPDX-License-Identifier: Apache-2.0
// Test equipment, not the product: rnicsim with one responder rule broken on purpose, chosen
// at run time, so that ctest seeded/* can show the protection monitor catches the DMA the bug
// lets through (docs/validation.md, "The protection monitor"). Only the protection checker's
// sources are compiled again, with RNICSIM_SEEDED_BUGS (model/rnic/protection/seeded_bug.h);
// they take the place of the library's at link time.
//   usage: RNICSIM_SEEDED_BUG=BUG rnicsim_seeded_bugs ARGS   (ARGS and exit statuses as rnicsim's)
//   BUG: direction (a read without remote read, a write without remote write, accepted),
//        pd (the PD check skipped), wrong_region (translation through the next MPT entry's
//        MTT entries), stale_tag (the tag check skipped), bounds (one byte past the end).
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <systemc>
#include <vector>

#include "app/cli/cli.h"
#include "model/rnic/protection/seeded_bug.h"

namespace rnic {

namespace {

struct Named {
  const char* name;
  SeededBug bug;
};
constexpr Named kBugs[] = {{"direction", SeededBug::Direction}, {"pd", SeededBug::Pd},
                           {"wrong_region", SeededBug::WrongRegion},
                           {"stale_tag", SeededBug::StaleTag}, {"bounds", SeededBug::Bounds}};

SeededBug chosen = SeededBug::None;

}  // namespace

SeededBug seeded_bug() { return chosen; }

}  // namespace rnic

int sc_main(int argc, char** argv) {
  std::string known;
  for (const auto& b : rnic::kBugs) known += (known.empty() ? "" : ", ") + std::string(b.name);
  const char* name = std::getenv("RNICSIM_SEEDED_BUG");
  if (!name) {
    std::cerr << "rnicsim_seeded_bugs: set RNICSIM_SEEDED_BUG to one of " << known << "\n";
    return rnic::app::kExitInvalid;
  }
  for (const auto& b : rnic::kBugs) {
    if (std::strcmp(name, b.name) == 0) rnic::chosen = b.bug;
  }
  if (rnic::chosen == rnic::SeededBug::None) {
    std::cerr << "rnicsim_seeded_bugs: " << name << " is not a seeded bug (" << known << ")\n";
    return rnic::app::kExitInvalid;
  }
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  const int status = rnic::app::run_cli(args, std::cout, std::cerr);
  std::cout.flush();
  return status;
}

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
