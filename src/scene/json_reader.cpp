#include "scene/json_reader.h"

#include <impulse/error.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <unordered_set>

namespace impulse {
namespace {

// nlohmann's messages start with "[json.exception.parse_error.101] "; the file and path say that.
std::string without_exception_tag(const std::string& what) {
  const std::size_t end = what.find("] ");
  return what.starts_with("[json.exception.") && end != std::string::npos ? what.substr(end + 2)
                                                                          : what;
}

// Follows the parser through the document, so that a problem it meets (a duplicate key, a number
// out of range) can be named by its JSON pointer, which nlohmann's errors do not give.
class PathTracker {
 public:
  explicit PathTracker(const std::string& file) : file_(file) {}

  bool on_event(Json::parse_event_t event, const Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
        frames_.emplace_back(false);
        break;
      case Json::parse_event_t::array_start:
        frames_.emplace_back(true);
        break;
      case Json::parse_event_t::key: {
        Frame& frame = frames_.back();
        frame.key = parsed.get<std::string>();
        if (!frame.keys.insert(frame.key).second && !inside_extra())
          throw SceneError(file_, path(), "duplicate key '" + frame.key + "'");
        break;
      }
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        frames_.pop_back();
        next_element();
        break;
      case Json::parse_event_t::value:
        next_element();
        break;
    }
    return true;
  }

  /// The pointer of the value being parsed.
  std::string path() const {
    JsonPointer pointer;
    for (const Frame& frame : frames_) {
      if (frame.is_array) {
        pointer /= frame.index;
      } else {
        pointer /= frame.key;
      }
    }
    return pointer.to_string();
  }

 private:
  struct Frame {
    explicit Frame(bool array) : is_array(array) {}
    bool is_array;
    std::size_t index = 0;                 // arrays: the element being parsed
    std::string key;                       // objects: the key being parsed
    std::unordered_set<std::string> keys;  // objects: the keys seen so far
  };

  void next_element() {
    if (!frames_.empty() && frames_.back().is_array) ++frames_.back().index;
  }

  // "extra" holds anything, even what a strict reader would refuse.
  bool inside_extra() const {
    return std::any_of(frames_.begin(), frames_.end() - 1,
                       [](const Frame& f) { return !f.is_array && f.key == "extra"; });
  }

  const std::string& file_;
  std::vector<Frame> frames_;
};

// The number of single-character edits from a to b (Levenshtein), for "did you mean" hints.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitution});
    }
  }
  return row[b.size()];
}

const char* json_type_name(const Json& value) {
  if (value.is_number()) return "a number";
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "a boolean";
  if (value.is_array()) return "an array";
  if (value.is_object()) return "an object";
  return "null";
}

}  // namespace

Json parse_json_text(const std::string& text, const std::string& file) {
  PathTracker tracker(file);
  try {
    return Json::parse(text, [&tracker](int /*depth*/, Json::parse_event_t event, Json& parsed) {
      return tracker.on_event(event, parsed);
    });
  } catch (const Json::parse_error& e) {
    throw SceneError(file, "", "invalid JSON: " + without_exception_tag(e.what()));
  } catch (const Json::out_of_range& e) {
    // While parsing, only a number beyond the range of a double (such as 1e999) is out of range.
    throw SceneError(file, tracker.path(),
                     "must be a finite number (" + without_exception_tag(e.what()) + ")");
  }
}

void JsonNode::fail(const std::string& problem) const {
  throw SceneError(*file_, pointer(), problem);
}

void JsonNode::fail_at(const std::string& relative_path, const std::string& problem) const {
  throw SceneError(*file_, pointer() + relative_path, problem);
}

void JsonNode::expect_object() const {
  if (!value_->is_object()) fail(std::string("must be an object, not ") + json_type_name(*value_));
}

void JsonNode::expect_keys(const std::vector<std::string_view>& allowed) const {
  expect_object();
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    const std::string& key = it.key();
    if (key == "extra" || std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string problem = "unknown key '" + key + "'";
    const auto closest = std::min_element(allowed.begin(), allowed.end(),
                                          [&key](std::string_view a, std::string_view b) {
                                            return edit_distance(key, a) < edit_distance(key, b);
                                          });
    if (closest != allowed.end() && edit_distance(key, *closest) <= 2)
      problem += " (did you mean '" + std::string(*closest) + "'?)";
    throw SceneError(*file_, (path_ / key).to_string(), problem);
  }
}

bool JsonNode::has(std::string_view key) const {
  expect_object();
  return value_->contains(key);
}

std::optional<JsonNode> JsonNode::find(std::string_view key) const {
  expect_object();
  const auto it = value_->find(key);
  if (it == value_->end()) return std::nullopt;
  return JsonNode(*it, path_ / std::string(key), *file_);
}

JsonNode JsonNode::at(std::string_view key) const {
  if (auto node = find(key)) return *node;
  throw SceneError(*file_, (path_ / std::string(key)).to_string(),
                   "missing required key '" + std::string(key) + "'");
}

std::size_t JsonNode::array_size() const {
  if (!value_->is_array()) fail(std::string("must be an array, not ") + json_type_name(*value_));
  return value_->size();
}

JsonNode JsonNode::element(std::size_t index) const {
  return JsonNode((*value_)[index], path_ / index, *file_);
}

void JsonNode::expect_array(std::size_t size, const std::string& what) const {
  if (!value_->is_array()) fail("must be " + what + ", not " + json_type_name(*value_));
  if (value_->size() != size)
    fail("must be " + what + ", not an array of " + std::to_string(value_->size()));
}

Real JsonNode::real() const {
  if (!value_->is_number()) fail(std::string("must be a number, not ") + json_type_name(*value_));
  const double x = value_->get<double>();
  // A double beyond the float range would turn into infinity (or be undefined) when narrowed.
  constexpr Real k_max = std::numeric_limits<Real>::max();
  if (!std::isfinite(x) || std::abs(x) > double(k_max)) {
    std::array<char, 32> text{};
    const auto written = std::to_chars(text.data(), text.data() + text.size(), k_max);
    fail("must be a finite number of magnitude at most " + std::string(text.data(), written.ptr));
  }
  return static_cast<Real>(x);
}

int JsonNode::integer() const {
  if (!value_->is_number()) fail(std::string("must be an integer, not ") + json_type_name(*value_));
  const double x = value_->get<double>();
  if (x != std::trunc(x) || x < std::numeric_limits<int>::min() ||
      x > std::numeric_limits<int>::max())
    fail("must be an integer");
  return static_cast<int>(x);
}

std::uint32_t JsonNode::index() const {
  if (!value_->is_number()) fail(std::string("must be an integer, not ") + json_type_name(*value_));
  const double x = value_->get<double>();
  if (x != std::trunc(x) || x < 0 || x > std::numeric_limits<std::uint32_t>::max())
    fail("must be an integer in [0, 4294967295]");
  return static_cast<std::uint32_t>(x);
}

bool JsonNode::boolean() const {
  if (!value_->is_boolean())
    fail(std::string("must be true or false, not ") + json_type_name(*value_));
  return value_->get<bool>();
}

const std::string& JsonNode::string() const {
  if (!value_->is_string()) fail(std::string("must be a string, not ") + json_type_name(*value_));
  return value_->get_ref<const std::string&>();
}

Real JsonNode::real_element(std::size_t index) const {
  // The common case without making the element's path, which only an error needs.
  const Json& x = (*value_)[index];
  if (x.is_number()) {
    const double d = x.get<double>();
    if (std::abs(d) <= double(std::numeric_limits<Real>::max())) return static_cast<Real>(d);
  }
  return element(index).real();
}

Vec3 JsonNode::vec3() const {
  expect_array(3, "an array of 3 numbers [x, y, z]");
  return {real_element(0), real_element(1), real_element(2)};
}

Quat JsonNode::quat() const {
  expect_array(4, "a quaternion [x, y, z, w]");
  return {real_element(0), real_element(1), real_element(2), real_element(3)};
}

Range JsonNode::range() const {
  expect_array(2, "a range [lo, hi]");
  const Range range{real_element(0), real_element(1)};
  if (range.lo > range.hi) fail("must be a range [lo, hi] with lo <= hi");
  return range;
}

std::vector<Vec3> JsonNode::vec3_list() const {
  std::vector<Vec3> points(array_size());
  for (std::size_t i = 0; i < points.size(); ++i)
    points[i] = element(i).vec3();
  return points;
}

}  // namespace impulse
