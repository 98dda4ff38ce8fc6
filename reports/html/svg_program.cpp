#include "reports/html/svg_program.hpp"
#include "common/text_file.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

extern char** environ;

namespace fb {
namespace {

// A private temporary directory for one drawing, removed with its files.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "fabricbench-plot-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw std::runtime_error(fmt::format("cannot create a temporary directory: {}", std::strerror(errno)));
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::filesystem::path operator/(const char* name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

}  // namespace

namespace {

// Runs `words` (the program first) with stdin from /dev/null and stdout and stderr to the files
// given, and returns its wait status; throws when it cannot start.
int run_program(std::vector<std::string> words, const std::filesystem::path& stdout_path,
                const std::filesystem::path& stderr_path, std::string_view package) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawn_error = ::posix_spawnp(&pid, words.front().c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawn_error != 0)
    throw std::runtime_error(
        fmt::format("cannot run {} ({}); install the {} package", words.front(), std::strerror(spawn_error), package));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  return status;
}

std::string last_words(const std::filesystem::path& error_path) {
  std::string message = read_text(error_path).value_or("");
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  return message;
}

}  // namespace

std::string draw_svg(const std::string& program, const std::vector<std::string>& arguments, std::string_view script,
                     std::string_view what, std::string_view package) {
  const ScratchDir scratch;
  const std::filesystem::path script_path = scratch / "figure.in";
  const std::filesystem::path svg_path = scratch / "figure.svg";
  const std::filesystem::path error_path = scratch / "stderr.txt";
  std::ofstream(script_path, std::ios::binary) << script;
  std::vector<std::string> words{program};
  words.insert(words.end(), arguments.begin(), arguments.end());
  words.push_back(script_path.string());
  const int status = run_program(std::move(words), svg_path, error_path, package);
  const std::string svg = read_text(svg_path).value_or("");
  // What precedes <svg> (an XML prolog, a DOCTYPE with external references) stays out of the page.
  const std::size_t start = svg.find("<svg");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || start == std::string::npos)
    throw std::runtime_error(fmt::format("{} failed drawing {}: {}", program, what, last_words(error_path)));
  return svg.substr(start);
}

std::string print_html_to_pdf(std::string_view html) {
  const ScratchDir scratch;
  const std::filesystem::path page = scratch / "report.html";
  const std::filesystem::path pdf = scratch / "report.pdf";
  const std::filesystem::path error_path = scratch / "stderr.txt";
  std::ofstream(page, std::ios::binary) << html;
  // A private profile and no background traffic: the report loads nothing, and neither may the
  // browser. --no-sandbox: the sandbox cannot start as root, and the page runs no script.
  const int status = run_program({"chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                                  "--user-data-dir=" + (scratch / "profile").string(), "--no-pdf-header-footer",
                                  "--print-to-pdf=" + pdf.string(), "file://" + page.string()},
                                 scratch / "stdout.txt", error_path, "chromium");
  const std::string document = read_text(pdf).value_or("");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !document.starts_with("%PDF-"))
    throw std::runtime_error(fmt::format("chromium failed printing the report to PDF: {}", last_words(error_path)));
  return document;
}

std::string render_dot_svg(std::string_view dot, std::string_view what) {
  return draw_svg("dot", {"-Tsvg"}, dot, what, "graphviz");
}

}  // namespace fb
