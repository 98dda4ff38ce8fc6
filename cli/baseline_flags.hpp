#pragma once
// `--baseline SPEC`, `--baseline-tolerance` and `--store URL` of accept, compare and campaign: the
// flags of history/baseline_store.hpp's request.

#include "history/baseline_store.hpp"

#include <CLI/CLI.hpp>

#include <string>

namespace fb::cli {

using history::BaselineOptions;
using history::judge_baseline;
using history::open_store;
using history::record_judged;

// `store_help` says what else the command records there.
void add_baseline_flags(CLI::App& app, BaselineOptions& options, const std::string& store_help);

}  // namespace fb::cli
