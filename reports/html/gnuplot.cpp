#include "html/gnuplot.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace fb {
namespace {

// A private temporary directory for one gnuplot run, removed with its files.
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

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::string gnuplot_safe_text(std::string_view text) {
  std::string safe;
  for (const char c : text) {
    const bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                         std::string_view(" .,:;_-+/()[]=#%").find(c) != std::string_view::npos;
    safe += allowed ? c : '?';
  }
  return safe;
}

std::string gnuplot_script(const LogLogPlot& plot) {
  // noenhanced: no ^ _ @ { } markup in labels; no 'mouse' option: the SVG carries no JavaScript.
  std::string script = "set terminal svg size 760,420 dynamic noenhanced font 'sans,11' background '#ffffff'\n";
  script += fmt::format("set title '{}'\nset xlabel '{}'\nset ylabel '{}'\n", gnuplot_safe_text(plot.title),
                        gnuplot_safe_text(plot.x_label), gnuplot_safe_text(plot.y_label));
  script += "set logscale y 10\nset grid xtics ytics mytics lc rgb '#dddddd'\nset key outside right top\n";
  // %b%B prints the mantissa and binary prefix of the value: 1k, 64k, 1M, 1G.
  script += plot.x_is_bytes ? "set logscale x 2\nset format x '%.0b%B'\nset xtics 4\n" : "set logscale x 10\n";
  std::vector<std::string> plotted;
  for (std::size_t i = 0; i < plot.series.size(); ++i) {
    std::string block;
    for (const auto& [x, y] : plot.series[i].points)
      if (x > 0 && y > 0) block += fmt::format("{:.9g} {:.9g}\n", x, y);
    if (block.empty()) continue;
    script += fmt::format("$series{} << EOD\n{}EOD\n", i, block);
    plotted.push_back(fmt::format("$series{} using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 title '{}'", i,
                                  gnuplot_safe_text(plot.series[i].title)));
  }
  if (plotted.empty()) {
    // An empty frame still says that the op had nothing plottable, instead of a missing figure.
    script += "set xrange [1:1024]\nset yrange [1:10]\nunset key\n"
              "set label 'no positive values to plot' at graph 0.5,0.5 center\nplot 1/0 notitle\n";
    return script;
  }
  script += "plot ";
  for (std::size_t i = 0; i < plotted.size(); ++i) script += (i ? ", \\\n  " : "") + plotted[i];
  return script + "\n";
}

std::string render_svg(const LogLogPlot& plot) {
  const ScratchDir scratch;
  const std::filesystem::path script_path = scratch / "plot.gp";
  const std::filesystem::path svg_path = scratch / "plot.svg";
  const std::filesystem::path error_path = scratch / "stderr.txt";
  std::ofstream(script_path) << gnuplot_script(plot);

  // posix_spawn, not a shell: no input text is ever interpreted by /bin/sh.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, svg_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, error_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::string program = "gnuplot";
  std::string script_argument = script_path.string();
  char* argv[] = {program.data(), script_argument.data(), nullptr};
  pid_t pid = 0;
  const int spawn_error = ::posix_spawnp(&pid, "gnuplot", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawn_error != 0)
    throw std::runtime_error(fmt::format("cannot run gnuplot ({}); install the gnuplot-nox package",
                                         std::strerror(spawn_error)));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const std::string svg = read_text(svg_path);
  const std::size_t start = svg.find("<svg");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || start == std::string::npos) {
    std::string message = read_text(error_path);
    while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
    throw std::runtime_error(fmt::format("gnuplot failed drawing '{}': {}", plot.title, message));
  }
  return svg.substr(start);
}

}  // namespace fb
