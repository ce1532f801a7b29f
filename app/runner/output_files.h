// SPDX-License-Identifier: Apache-2.0
// The rules for files rnicsim writes (docs/user-guide.md, "Output files"): an output may
// create a new file or replace a regular file (a symbolic link to one is written through);
// anything else (a FIFO, a device, a directory, a dangling link) is refused, and so is an
// output that is one of the run's inputs. Every output is checked before anything runs, so a
// typo never throws away a finished simulation.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace rnic::app {

// "" when `path` may be written as an output of a run reading `inputs`, else the reason
// ("--out "x": is a FIFO ..."). `what` names the option in the message.
std::string check_output_file(const std::string& what, const std::string& path,
                              const std::vector<std::string>& inputs);

// check_output_file for each (option, path), and no two outputs naming one file; "" or the
// first reason.
std::string check_outputs(const std::vector<std::pair<std::string, std::string>>& outputs,
                          const std::vector<std::string>& inputs);

// Moves the finished file `from` (a regular file rnicsim wrote) to `to`, which passed
// check_output_file: a rename when `to` is new or a regular file, else (a symbolic link) a
// copy through the link, so the link stays. "" or the reason it failed.
std::string move_output_file(const std::string& from, const std::string& to);

}  // namespace rnic::app
