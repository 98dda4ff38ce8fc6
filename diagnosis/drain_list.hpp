#pragma once
// The hosts a command found at fault, with why, in a file a scheduler's tools take line by line:
//
//   # fabricbench drain list (doctor, 2026-11-23T11:50:02Z): HOST<TAB>REASON per line
//   h00003<TAB>fabricbench doctor: port mlx5_3/1: error counters grew within 30 s: symbol_error +51
//
// The host is the first field (no white space in it), the reason the rest of the line: one line,
// no tab, no double quote (it must fit in `scontrol update ... reason="..."`), at most
// max_reason_bytes. docs/fleet-health.md shows the Slurm and Kubernetes commands that read it.

#include <cstddef>
#include <filesystem>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace fb::diagnosis {

// A host one judgement blames, with why; handed to another judgement's drain list.
struct HostReason {
  std::string host{};
  std::string reason{};
};

class DrainList {
 public:
  static constexpr std::size_t max_reason_bytes = 240;

  // `command` names the source in every reason ("doctor" -> "fabricbench doctor: ...").
  DrainList() = default;
  explicit DrainList(std::string command) : command_(std::move(command)) {}

  // Adds a reason for `host`; several reasons for one host are joined with "; ". Hosts keep the
  // order they were first added in.
  void add(const std::string& host, std::string_view reason);

  bool empty() const { return hosts_.empty(); }
  const std::vector<std::string>& hosts() const { return hosts_; }
  // Every reason given for `host`, "; " between them; empty for a host not on the list.
  std::string reason_of(const std::string& host) const;

  // The file's text: the header line, then one line per host.
  std::string text() const;

  // Writes text() atomically, then says so on `out` ("# drain list: PATH (2 hosts)"); throws
  // std::runtime_error naming the path.
  void write(const std::filesystem::path& path, std::ostream& out) const;

 private:
  std::string command_;
  std::vector<std::string> hosts_;
  std::map<std::string, std::vector<std::string>> reasons_;
};

}  // namespace fb::diagnosis
