#include "cli/baseline_flags.hpp"

#include <fmt/format.h>

namespace fb::cli {

void add_baseline_flags(CLI::App& app, BaselineOptions& options, const std::string& store_help) {
  app.add_option("--baseline", options.spec,
                 "judge against earlier runs in the run store: accepted[:N] (the last N runs that passed, default "
                 "20), last[:N], or RUN_ID[,RUN_ID...]; INCONCLUSIVE where the noise cannot decide");
  app.add_option("--baseline-tolerance", options.settings.tolerance,
                 "how much worse than the baseline a measurement may be and pass (fraction)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 0.99));
  app.add_option("--store", options.store,
                 fmt::format("run store (SQLite file or postgresql://USER@HOST:PORT/DB) the baseline is read from "
                             "(default {}){}",
                             history::default_store_path, store_help));
}

}  // namespace fb::cli
