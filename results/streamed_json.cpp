#include "results/streamed_json.hpp"

#include "common/errors.hpp"
#include "results/json_fields.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace fb {
namespace {

// nlohmann's SAX interface: one call per token, so a document is read in one pass over its bytes.
// Containers are built as values, as nlohmann's own parser builds them, except the streamed array
// (when there is one), whose elements go to the caller as they close. nlohmann's parse(text,
// callback) is not linear: its callback parser searches the parent container for a discarded value
// after every object closes, rescanning an array of n objects n times.
template <class Json>
class StreamingHandler {
 public:
  using Element = std::function<void(std::size_t index, Json&& element)>;

  // Without a streamed key nothing is streamed and malformed JSON is nlohmann's own exception
  // (its byte offset lets an importer name the line); with one it is InputError "ORIGIN: not valid
  // JSON: ...".
  StreamingHandler(const std::string& origin, std::optional<std::string_view> streamed_key, const Element& element)
      : origin_(origin), streamed_key_(streamed_key), element_(element) {}

  bool null() { return add(Json()); }
  bool boolean(bool value) { return add(Json(value)); }
  bool number_integer(std::int64_t value) { return add(Json(value)); }
  bool number_unsigned(std::uint64_t value) { return add(Json(value)); }
  bool number_float(double value, const std::string& /*text*/) { return add(Json(value)); }
  bool string(std::string& value) { return add(Json(std::move(value))); }
  bool binary(typename Json::binary_t& value) { return add(Json::binary(std::move(value))); }

  bool start_object(std::size_t /*size*/) {
    require_depth();
    open_.push_back({Json::object(), {}});
    return true;
  }

  bool key(std::string& name) {
    require_depth();
    Open& object = open_.back();
    if (!duplicate_key_ && object.value.contains(name)) duplicate_key_ = name;
    object.key = std::move(name);
    return true;
  }

  bool end_object() { return close(); }

  bool start_array(std::size_t /*size*/) {
    require_depth();
    // The streamed array: a member of the top-level object, not inside anything else.
    if (streamed_key_ && !streaming_ && open_.size() == 1 && open_.front().value.is_object() &&
        open_.front().key == *streamed_key_) {
      streaming_ = true;
      streamed_ = true;
      // Holds the key's place, so that a second member of that name is a duplicate.
      append(open_.front(), Json::array());
      return true;
    }
    open_.push_back({Json::array(), {}});
    return true;
  }

  bool end_array() {
    if (streaming_ && open_.size() == 1) {
      streaming_ = false;
      return true;
    }
    return close();
  }

  // parse_error, and out_of_range for numbers beyond double.
  template <class Exception>
  bool parse_error(std::size_t /*position*/, const std::string& /*token*/, const Exception& error) {
    if (!streamed_key_) throw error;
    throw InputError(fmt::format("{}: not valid JSON: {}", origin_, error.what()));
  }

  Json& head() { return head_; }
  bool streamed() const { return streamed_; }
  std::optional<std::string>& duplicate_key() { return duplicate_key_; }

 private:
  struct Open {
    Json value;       // an object or array being read
    std::string key;  // objects: the member whose value is being read
  };

  // As nlohmann's parse with a depth callback counted: the containers open around a
  // token, the one it opens not included.
  void require_depth() const {
    const std::size_t depth = open_.size() + (streaming_ ? 1 : 0);
    if (depth > static_cast<std::size_t>(max_json_depth))
      throw InputError(fmt::format("{}: JSON nested deeper than {} levels", origin_, max_json_depth));
  }

  static void append(Open& parent, Json&& value) {
    if (parent.value.is_array()) {
      parent.value.template get_ref<typename Json::array_t&>().push_back(std::move(value));
    } else if constexpr (std::is_same_v<Json, nlohmann::ordered_json>) {
      // The key was checked against the object's others when it was read: no second search here.
      parent.value.template get_ref<typename Json::object_t&>().emplace_back(std::move(parent.key), std::move(value));
    } else {
      // A key twice keeps its last value, as nlohmann's parse does.
      parent.value.template get_ref<typename Json::object_t&>()[std::move(parent.key)] = std::move(value);
    }
  }

  bool add(Json&& value) {
    require_depth();
    if (streaming_ && open_.size() == 1)
      element_(elements_++, std::move(value));
    else if (open_.empty())
      head_ = std::move(value);
    else
      append(open_.back(), std::move(value));
    return true;
  }

  bool close() {
    Json value = std::move(open_.back().value);
    open_.pop_back();
    return add(std::move(value));
  }

  const std::string& origin_;
  std::optional<std::string_view> streamed_key_;
  const Element& element_;
  std::vector<Open> open_;  // outermost first; the streamed array is not among them
  bool streaming_ = false;
  std::size_t elements_ = 0;
  Json head_;
  bool streamed_ = false;
  std::optional<std::string> duplicate_key_;
};

}  // namespace

StreamedJson parse_streamed_json(std::istream& text, const std::string& origin, std::string_view streamed_key,
                                 const StreamedElement& element) {
  StreamingHandler<nlohmann::ordered_json> handler(origin, streamed_key, element);
  nlohmann::ordered_json::sax_parse(text, &handler);
  return {std::move(handler.head()), handler.streamed(), std::move(handler.duplicate_key())};
}

nlohmann::json parse_json_document(std::string_view text, const std::string& origin) {
  const StreamingHandler<nlohmann::json>::Element none;
  StreamingHandler<nlohmann::json> handler(origin, std::nullopt, none);
  nlohmann::json::sax_parse(text, &handler);
  return std::move(handler.head());
}

}  // namespace fb
