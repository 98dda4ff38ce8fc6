#pragma once
// The Fast C++ CSV Parser (libfccp), included once for the project. Its reader copies a file name
// into a fixed buffer with strncpy, which GCC flags in the library's own header; clang has no such
// warning group, and clang-tidy reports an unknown one, so only GCC is told.

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#include <libfccp/csv.h>
#pragma GCC diagnostic pop
#else
#include <libfccp/csv.h>
#endif
