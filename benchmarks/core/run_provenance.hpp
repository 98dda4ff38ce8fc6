#pragma once

#include "results/provenance.hpp"

#include <string>

namespace fb {

class Backend;

// Provenance of a run on this backend: versions, placement, host and the environment variables
// that change how the libraries behave.
Provenance collect_provenance(const Backend& backend, std::string run_id, std::string command_line);

}  // namespace fb
