#pragma once
// Reads a JSON document whose bulk is one array member of its top-level object (the "rows" of a
// results file) without holding that array: its elements are handed over one at a time, as each
// closes, and everything else is kept as a value. A results file of 10^6 rows (1 GB) then loads in
// time linear in its rows and in memory bounded by the rows' own conversion, where the whole
// document as nlohmann values held 6-7x the file and nlohmann's filtering parser rescanned the
// array after every element (quadratic: 306 s of CPU for 10^6 rows).
//
// The checks every JSON read gets hold here too: nesting deeper than max_json_depth is InputError
// "ORIGIN: JSON nested deeper than 64 levels" at once, malformed JSON InputError "ORIGIN: not valid
// JSON: ...", and a key twice in one object is reported (not thrown: the caller orders its
// errors; nlohmann alone would keep the last value silently).

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <istream>
#include <optional>
#include <string>
#include <string_view>

namespace fb {

struct StreamedJson {
  // The document's value, less the streamed array's elements (it holds an empty array in their
  // place): the top-level object's other members, or whatever else the document was.
  nlohmann::ordered_json head;
  // The streamed member was present and an array (a member of another type stays in head).
  bool streamed = false;
  // The first key, in document order, that appears twice in one object.
  std::optional<std::string> duplicate_key;
};

// Called with each element of the streamed array, in order, with its index.
using StreamedElement = std::function<void(std::size_t index, nlohmann::ordered_json&& element)>;

// `streamed_key`: the top-level member whose array is streamed. Exceptions `element` throws stop
// the parse and reach the caller.
StreamedJson parse_streamed_json(std::istream& text, const std::string& origin, std::string_view streamed_key,
                                 const StreamedElement& element);

// The whole document as values, read in the same single pass with the same depth check: the reader
// of every JSON log the importers take (nlohmann's parse with a callback had been quadratic in an
// array's objects: 392 s of CPU for 10^6 Google Benchmark entries). Malformed JSON is nlohmann's own
// exception (parse_error with its byte offset, out_of_range for a number beyond double), for the
// importer to word with a line; a key twice in one object keeps its last value, as nlohmann's
// parse does.
nlohmann::json parse_json_document(std::string_view text, const std::string& origin);

}  // namespace fb
