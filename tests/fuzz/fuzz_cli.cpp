// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the rnicsim command line. An input is an argument vector, one argument
// per line ('\n' separates them; "rnicsim" itself is implied), run through run_cli() as the
// executable does, except that `run` stops where it would start simulating (run_cli's
// simulate = false: SystemC elaborates once per process). So every command is exercised: the
// option table, the checks across options, loading the files, the memory budget, the output
// path rules (the files `run` would write are checked, never written), and gen, expect,
// schema, params, presets, validate in full. Built and run by scripts/fuzz --target cli.
//
// Everything happens in a directory of its own under /tmp, rebuilt before each input:
// scenario files (good.json, bad.json, big.json over the memory budget, many.json of 64
// nodes), and what the output rules are about: target (a regular file), link -> target,
// dangling -> nothing, fifo, dir/. An input naming a path outside it (an argument holding
// '/' other than in "dir/", or "..") is skipped, so nothing is ever written elsewhere; so is
// one that reads the FIFO (a read waits for a writer, as for any program), one that asks
// `gen` for more than 200 steps (slow, not wrong) and `stats` after its first time (it
// elaborates a platform; SystemC's object names would collide).
//
// A finding (a trap): an exception out of run_cli() (it must never throw), exit 3 (an
// rnicsim bug, never a bad command line), an exit status outside 0..3, exit 2 without a
// message on stderr, a file the command read changed, or the FIFO, the links or the
// directory replaced (an output may replace a regular file only).
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/cli.h"

namespace {

using rnic::app::CliOptions;

[[noreturn]] void finding(const std::string& what, const std::vector<std::string>& args) {
  std::fprintf(stderr, "fuzz_cli: FINDING: %s\n  rnicsim", what.c_str());
  for (const std::string& a : args) std::fprintf(stderr, " '%s'", a.c_str());
  std::fputc('\n', stderr);
  std::fflush(stderr);
  __builtin_trap();
}

const char* const kGood = R"({"name": "good", "nodes": ["A", "B"], "steps": [
  {"op": "alloc", "node": "A", "name": "sink", "size": 4096},
  {"op": "alloc", "node": "B", "name": "src", "size": 4096, "fill": "incrementing"},
  {"op": "create_pd", "node": "A", "name": "pdA"}, {"op": "create_pd", "node": "B", "name": "pdB"},
  {"op": "create_cq", "node": "A", "name": "cqA"}, {"op": "create_cq", "node": "B", "name": "cqB"},
  {"op": "create_qp", "name": "qpA", "pd": "pdA", "cq": "cqA"},
  {"op": "create_qp", "name": "qpB", "pd": "pdB", "cq": "cqB"},
  {"op": "connect", "qp": "qpA", "peer": "qpB"},
  {"op": "create_mr", "name": "mrA", "pd": "pdA"},
  {"op": "register_mr", "mr": "mrA", "buffer": "sink", "flags": ["ALLOW_LOCAL_WRITE", "RDMA_READ_SINK"]},
  {"op": "create_mr", "name": "mrB", "pd": "pdB"},
  {"op": "register_mr", "mr": "mrB", "buffer": "src", "flags": ["ALLOW_REMOTE_READ"]},
  {"op": "read", "qp": "qpA", "sgl": [{"mr": "mrA", "length": 64}], "remote": {"target": "mrB"}, "context": 1},
  {"op": "poll", "cq": "cqA", "expect": [{"context": 1, "status": "STATUS_SUCCESS"}]},
  {"op": "expect_memory", "buffer": "sink", "length": 64, "equals": {"buffer": "src"}}]}
)";
const char* const kBad =
    "{\"name\": \"bad\",\n \"steps\": [{\"op\": \"wait\", \"ns\": \"soon\"}]}\n";

std::string nodes_file(const char* name, int nodes, const char* config) {
  std::string list;
  for (int i = 0; i < nodes; ++i)
    list += std::string(i ? ", " : "") + "\"N" + std::to_string(i) + "\"";
  return std::string(R"({"name": ")") + name + R"(", "nodes": [)" + list + R"(], "config": )" +
         config + R"(, "steps": [{"op": "create_pd", "node": "N0", "name": "pd"}]})";
}

// The fixture's files and their contents (inputs must stay as they are).
std::vector<std::pair<std::string, std::string>> inputs() {
  return {{"good.json", kGood},
          {"bad.json", kBad},
          {"big.json", nodes_file("big", 64,
                                  R"({"set": {"mtt.cache_entries": 1048576, "mtt.cache_ways": 8,
                                              "mpt.cache_entries": 1048576}})")},
          {"many.json", nodes_file("many", 64, "{}")},
          {"target", "keep\n"}};
}

void remove_tree(const std::string& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) return;
  if (S_ISDIR(info.st_mode)) {
    if (DIR* d = ::opendir(path.c_str())) {
      while (dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name != "." && name != "..") remove_tree(path + "/" + name);
      }
      ::closedir(d);
    }
    ::rmdir(path.c_str());
  } else {
    ::unlink(path.c_str());
  }
}

std::string& root() {
  static std::string path;
  return path;
}

// The working directory, made once (and removed at exit); its contents rebuilt for each input.
void rebuild_fixture() {
  if (root().empty()) {
    char name[] = "/tmp/rnicsim-fuzz-cli-XXXXXX";
    if (!::mkdtemp(name)) {
      std::perror("fuzz_cli: mkdtemp");
      std::abort();
    }
    root() = name;
    if (::chdir(name) != 0) std::abort();
    std::atexit([] {
      if (::chdir("/tmp") == 0) remove_tree(root());
    });
  }
  if (DIR* d = ::opendir(".")) {
    while (dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") remove_tree(name);
    }
    ::closedir(d);
  }
  for (const auto& [name, text] : inputs()) std::ofstream(name) << text;
  if (::symlink("target", "link") != 0 || ::symlink("nothing", "dangling") != 0 ||
      ::mkfifo("fifo", 0600) != 0 || ::mkdir("dir", 0700) != 0) {
    std::perror("fuzz_cli: fixture");
    std::abort();
  }
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool is_kind(const std::string& path, mode_t kind) {
  struct stat info {};
  return ::lstat(path.c_str(), &info) == 0 && (info.st_mode & S_IFMT) == kind;
}

// True when `a` names nothing outside the directory: no "..", and a '/' only as the one of
// "dir/" at its start or right after a '=' (--out=dir/r.json).
bool inside(const std::string& a) {
  if (a.find("..") != std::string::npos) return false;
  const size_t slash = a.find('/');
  if (slash == std::string::npos) return true;
  if (a.find('/', slash + 1) != std::string::npos) return false;
  if (slash < 3 || a.compare(slash - 3, 3, "dir") != 0) return false;
  return slash == 3 || a[slash - 4] == '=';
}

// Inputs that would leave the directory, block on the FIFO or only take long.
bool skipped(const std::vector<std::string>& args, const CliOptions& o) {
  for (const std::string& a : args) {
    if (!inside(a)) return true;
  }
  for (const std::string& file : o.files) {
    if (is_kind(file, S_IFIFO)) return true;
  }
  if (o.command == "gen" && o.steps > 200) return true;
  if (o.command == "stats") {
    static bool once = false;
    if (once) return true;
    once = true;
  }
  return false;
}

}  // namespace

// libsystemc.so calls sc_main from its main(); libFuzzer has its own main, so this one is
// never called (`run` stops before SystemC would start).
extern "C" int sc_main(int, char**) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args(1);
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == '\n') {
      args.emplace_back();
    } else {
      args.back() += char(data[i]);
    }
  }
  if (args.size() > 64) return 0;
  rebuild_fixture();
  CliOptions o;  // what the command line asks for (nothing when it is refused)
  std::string error;
  if (!rnic::app::parse_cli(args, &o, &error)) o = CliOptions{};
  if (skipped(args, o)) return 0;
  std::ostringstream out, err;
  int status = -1;
  try {
    status = rnic::app::run_cli(args, out, err, {}, /*simulate=*/false);
  } catch (...) {
    finding("run_cli threw", args);
  }
  if (status == rnic::app::kExitInternal) finding("exit 3: " + err.str(), args);
  if (status < 0 || status > 3) finding("exit status " + std::to_string(status), args);
  if (status == rnic::app::kExitInvalid && err.str().empty()) finding("exit 2, no message", args);
  // What the command read is as it was (gen, schema or expect --out may replace another).
  for (const auto& [name, text] : inputs()) {
    for (const std::string& file : o.files) {
      const bool read = file == name || (name == "target" && file == "link");
      if (read && read_file(name) != text) finding(name + " changed", args);
    }
  }
  if (!is_kind("fifo", S_IFIFO)) finding("the FIFO was replaced", args);
  if (!is_kind("link", S_IFLNK) || !is_kind("dangling", S_IFLNK))
    finding("a link was replaced", args);
  if (!is_kind("dir", S_IFDIR)) finding("the directory was replaced", args);
  return 0;
}
