#pragma once
// The troubleshooting judgement (diagnosis/fabric_judgement.hpp) on the console: the flows
// examined, the findings ranked by cost with their tickets, the wrong results and drift, the
// efficiency of every op and size against the model; without a topology, the hosts compared.

#include "diagnosis/fabric_judgement.hpp"

#include <ostream>

namespace fb {

void print_fabric_judgement(std::ostream& out, const diagnosis::FabricJudgement& judged);

}  // namespace fb
