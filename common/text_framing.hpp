#pragma once
// What wraps a log or a dump between the tool that printed it and the file a user hands over:
// Open MPI's --tag-output prefixes ("[1,0]<stdout>:"), srun -l task labels ("0: "), timestamps
// at the start of every line (kubectl logs --timestamps, journalctl, ISO 8601), e-mail quoting
// ("> "), terminal colours (ANSI escape sequences), CRLF line ends, an indentation common to every
// line, a shell prompt around the output, and the Markdown code fences of a paste. Every importer
// and topology reader reads the text with these peeled, so that each reader knows its format
// only, and says once what was peeled.
//
// Peeling never removes, joins or splits a line: line N of the peeled text is line N of the file,
// so every FILE:LINE a reader reports is the file's own line.

#include "common/text_scan.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fb {

class FramedText {
 public:
  // Nothing peeled: the text is `original` itself, which must outlive this value.
  explicit FramedText(std::string_view original) : original_(original) {}
  FramedText(std::string_view original, std::string peeled_text, std::string peeled)
      : original_(original), peeled_text_(std::move(peeled_text)), peeled_(std::move(peeled)) {}

  // The text readers see.
  std::string_view text() const { return peeled_text_ ? std::string_view(*peeled_text_) : original_; }
  // Its lines, numbered as in the file.
  std::vector<NumberedLine> lines() const { return split_lines(text()); }
  bool changed() const { return peeled_text_.has_value(); }
  // What was peeled, one line ("Open MPI --tag-output prefixes ('[1,0]<stdout>:') on 41 lines; an
  // indentation of 4 spaces"); empty when nothing was.
  const std::string& peeled() const { return peeled_; }
  // The sentence a reader records once (a warning, a provenance assumption); empty when nothing was peeled.
  std::string note() const;

 private:
  std::string_view original_;
  std::optional<std::string> peeled_text_;
  std::string peeled_;
};

// The sentence FramedText::note() starts with: tests and tools that compare a framed file with its
// original recognise the note by it.
inline constexpr std::string_view framing_note_prefix = "framing peeled before reading";

FramedText peel_framing(std::string_view text);

}  // namespace fb
