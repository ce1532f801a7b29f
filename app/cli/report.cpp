// SPDX-License-Identifier: Apache-2.0
// rnicsim report: where requests spend their time, from a trace (or a results JSON).
#include "app/cli/commands.h"
#include "app/observe/trace_report.h"

namespace rnic::app {

const char* const kReportUsage =
    "usage: rnicsim report TRACE.json | RESULTS.json\n"
    "\n"
    "From a trace (rnicsim run --trace): the slices that share a request id are one work\n"
    "request; for each stage (a slice name on a unit, on the requester's side or the\n"
    "responder's) its count, mean, p50, p99 and max in ns, and the end-to-end latency of\n"
    "the requests (the host's post to its poll), then slices without a request and the\n"
    "counter tracks. Window the trace on the step you measure (run --trace-from STEP).\n"
    "From a results file (rnicsim run --out): the units' latency histograms and the\n"
    "workload steps. Exit 2 for a file that is neither.\n";

int cmd_report(const CommandContext& c) {
  std::string text, error;
  if (!report_file(c.options.file, &text, &error)) {
    c.err << "rnicsim: " << error << '\n';
    return kExitInvalid;
  }
  c.out << text;
  return kExitPassed;
}

}  // namespace rnic::app
