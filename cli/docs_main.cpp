// fabricbench_docs: writes the manual page and the shell completions of the fabricbench the build
// links, at build time (cli/CMakeLists.txt), so that what `cmake --install` puts beside the binary
// describes that binary.
//   fabricbench_docs TEMPLATE MAN_PAGE BASH_COMPLETION ZSH_COMPLETION

#include "cli/command_docs.hpp"
#include "cli/command_line.hpp"
#include "common/build_info.hpp"

#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

namespace {

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw std::runtime_error(fmt::format("cannot write {}", path));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: fabricbench_docs TEMPLATE MAN_PAGE BASH_COMPLETION ZSH_COMPLETION\n";
    return 2;
  }
  try {
    std::ifstream template_file(argv[1], std::ios::binary);
    if (!template_file) throw std::runtime_error(fmt::format("cannot read {}", argv[1]));
    std::ostringstream template_text;
    template_text << template_file.rdbuf();
    const fb::cli::CommandLine command_line = fb::cli::make_command_line({argc, argv});
    const fb::cli::CommandDoc program = fb::cli::describe_command_line(*command_line.app);
    write_file(argv[2], fb::cli::man_page(program, template_text.str(), fb::tool_version()));
    write_file(argv[3], fb::cli::bash_completion(program));
    write_file(argv[4], fb::cli::zsh_completion(program));
  } catch (const std::exception& e) {
    std::cerr << fmt::format("fabricbench_docs: {}\n", e.what());
    return 3;
  }
  return 0;
}
