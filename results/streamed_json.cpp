#include "results/streamed_json.hpp"

#include "common/errors.hpp"
#include "results/json_fields.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace fb {
namespace {

using Json = nlohmann::ordered_json;

// nlohmann's SAX interface: one call per token. Containers are built as values, as nlohmann's own
// parser builds them, except the streamed array, whose elements go to the caller as they close.
class StreamingHandler {
 public:
  StreamingHandler(const std::string& origin, std::string_view streamed_key, const StreamedElement& element)
      : origin_(origin), streamed_key_(streamed_key), element_(element) {}

  bool null() { return add(Json()); }
  bool boolean(bool value) { return add(Json(value)); }
  bool number_integer(std::int64_t value) { return add(Json(value)); }
  bool number_unsigned(std::uint64_t value) { return add(Json(value)); }
  bool number_float(double value, const std::string& /*text*/) { return add(Json(value)); }
  bool string(std::string& value) { return add(Json(std::move(value))); }
  bool binary(Json::binary_t& value) { return add(Json::binary(std::move(value))); }

  bool start_object(std::size_t /*size*/) {
    require_depth();
    open_.push_back({Json::object(), {}});
    return true;
  }

  bool key(std::string& name) {
    require_depth();
    Open& object = open_.back();
    if (!result_.duplicate_key && object.value.contains(name)) result_.duplicate_key = name;
    object.key = std::move(name);
    return true;
  }

  bool end_object() { return close(); }

  bool start_array(std::size_t /*size*/) {
    require_depth();
    // The streamed array: a member of the top-level object, not inside anything else.
    if (!streaming_ && open_.size() == 1 && open_.front().value.is_object() && open_.front().key == streamed_key_) {
      streaming_ = true;
      result_.streamed = true;
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

  bool parse_error(std::size_t /*position*/, const std::string& /*token*/, const nlohmann::detail::exception& error) {
    // parse_error, and out_of_range for numbers beyond double.
    throw InputError(fmt::format("{}: not valid JSON: {}", origin_, error.what()));
  }

  StreamedJson result() && { return std::move(result_); }

 private:
  struct Open {
    Json value;       // an object or array being read
    std::string key;  // objects: the member whose value is being read
  };

  // As nlohmann's depth-limited parse counted (json_fields.hpp): the containers open around a
  // token, the one it opens not included.
  void require_depth() const {
    const std::size_t depth = open_.size() + (streaming_ ? 1 : 0);
    if (depth > static_cast<std::size_t>(max_json_depth))
      throw InputError(fmt::format("{}: JSON nested deeper than {} levels", origin_, max_json_depth));
  }

  // The key was checked against the object's others when it was read: no second search here.
  static void append(Open& parent, Json&& value) {
    if (parent.value.is_array())
      parent.value.get_ref<Json::array_t&>().push_back(std::move(value));
    else
      parent.value.get_ref<Json::object_t&>().emplace_back(std::move(parent.key), std::move(value));
  }

  bool add(Json&& value) {
    require_depth();
    if (streaming_ && open_.size() == 1)
      element_(elements_++, std::move(value));
    else if (open_.empty())
      result_.head = std::move(value);
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
  std::string_view streamed_key_;
  const StreamedElement& element_;
  std::vector<Open> open_;  // outermost first; the streamed array is not among them
  bool streaming_ = false;
  std::size_t elements_ = 0;
  StreamedJson result_;
};

}  // namespace

StreamedJson parse_streamed_json(std::istream& text, const std::string& origin, std::string_view streamed_key,
                                 const StreamedElement& element) {
  StreamingHandler handler(origin, streamed_key, element);
  Json::sax_parse(text, &handler);
  return std::move(handler).result();
}

}  // namespace fb
