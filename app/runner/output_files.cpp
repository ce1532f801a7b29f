// SPDX-License-Identifier: Apache-2.0
#include "app/runner/output_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "app/scenario/text.h"

namespace rnic::app {

namespace {

std::string parent_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

std::string check_output_file(const std::string& what, const std::string& path,
                              const std::vector<std::string>& inputs) {
  const std::string where = what + " " + quote(path) + ": ";
  struct stat entry {};
  struct stat target {};
  const bool exists = ::lstat(path.c_str(), &entry) == 0;
  if (exists && ::stat(path.c_str(), &target) != 0) {
    return where + "a symbolic link to nothing (rnicsim writes only regular files)";
  }
  if (exists) {
    if (!S_ISREG(target.st_mode)) {
      return where + "is " + kind_of(target.st_mode) + "; rnicsim replaces only regular files";
    }
    for (const std::string& input : inputs) {
      struct stat in {};
      if (::stat(input.c_str(), &in) == 0 && in.st_dev == target.st_dev &&
          in.st_ino == target.st_ino) {
        return where + "is an input of this run (" + quote(input) + "); choose another file";
      }
    }
    if (::access(path.c_str(), W_OK) != 0) return where + "is not writable";
    return {};
  }
  const std::string dir = parent_of(path);
  struct stat d {};
  if (::stat(dir.c_str(), &d) != 0 || !S_ISDIR(d.st_mode)) {
    return where + "no directory " + quote(dir);
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    return where + "directory " + quote(dir) + " is not writable";
  }
  return {};
}

std::string check_outputs(const std::vector<std::pair<std::string, std::string>>& outputs,
                          const std::vector<std::string>& inputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto& [what, path] = outputs[i];
    const std::string error = check_output_file(what, path, inputs);
    if (!error.empty()) return error;
    for (size_t j = 0; j < i; ++j) {
      struct stat a {};
      struct stat b {};
      const bool same = outputs[j].second == path || (::stat(path.c_str(), &a) == 0 &&
                                                      ::stat(outputs[j].second.c_str(), &b) == 0 &&
                                                      a.st_dev == b.st_dev && a.st_ino == b.st_ino);
      if (same) return what + " " + quote(path) + ": also the file of " + outputs[j].first;
    }
  }
  return {};
}

std::string move_output_file(const std::string& from, const std::string& to) {
  struct stat link {};
  const bool is_link = ::lstat(to.c_str(), &link) == 0 && S_ISLNK(link.st_mode);
  if (!is_link) {
    if (std::rename(from.c_str(), to.c_str()) != 0) return "cannot rename " + from + " to " + to;
    return {};
  }
  std::ifstream in(from, std::ios::binary);
  std::ofstream out(to, std::ios::binary | std::ios::trunc);
  if (in.peek() != std::ifstream::traits_type::eof()) out << in.rdbuf();
  out.close();
  if (!in || !out) return "cannot copy " + from + " to " + to;
  std::remove(from.c_str());
  return {};
}

}  // namespace rnic::app
