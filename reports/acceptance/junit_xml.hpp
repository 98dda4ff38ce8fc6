#pragma once
// JUnit XML, the test-report format CI systems (Jenkins, GitLab, GitHub actions) display: one
// test case per acceptance check, a failure element for a failed one, skipped for a skipped one.

#include "diagnosis/acceptance.hpp"

#include <string>

namespace fb {

std::string acceptance_to_junit_xml(const diagnosis::AcceptanceVerdict& verdict, std::string_view suite_name);

}  // namespace fb
