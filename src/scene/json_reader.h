#pragma once
// Typed reading of a parsed JSON document that keeps every value's JSON pointer at hand, so that
// each problem becomes a SceneError naming the exact place (docs/scene-format.md).

#include <impulse/joint.h>
#include <impulse/math.h>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace impulse {

// Ordered, so that problems are found and documents are written in the file's key order.
using Json = nlohmann::ordered_json;
using JsonPointer = Json::json_pointer;

/// Parses JSON text. Throws SceneError for malformed text (path "", the message gives line and
/// column), a duplicate key (outside "extra") and a number beyond the range of a double.
Json parse_json_text(const std::string& text, const std::string& file);

/// A value of a parsed document with its JSON pointer. Every reader throws SceneError naming this
/// value (or the key concerned) when the value is not what the format wants.
class JsonNode {
 public:
  JsonNode(const Json& value, JsonPointer path, const std::string& file)
      : value_(&value), path_(std::move(path)), file_(&file) {}

  const Json& value() const { return *value_; }
  std::string pointer() const { return path_.to_string(); }
  [[noreturn]] void fail(const std::string& problem) const;
  /// Fails at a JSON pointer relative to this node, such as "/shapes/0/radius".
  [[noreturn]] void fail_at(const std::string& relative_path, const std::string& problem) const;

  /// Fails unless this is an object whose keys are all in `allowed` or "extra" (always ignored).
  void expect_keys(const std::vector<std::string_view>& allowed) const;
  bool has(std::string_view key) const;
  std::optional<JsonNode> find(std::string_view key) const;
  /// The value of a required key; fails at the key's path when it is missing.
  JsonNode at(std::string_view key) const;

  /// The length of an array.
  std::size_t array_size() const;
  JsonNode element(std::size_t index) const;

  /// A finite number that fits in Real.
  Real real() const;
  /// A number with an integral value that fits in int.
  int integer() const;
  /// An integer in [0, 2^32).
  std::uint32_t index() const;
  bool boolean() const;
  const std::string& string() const;
  Vec3 vec3() const;
  Quat quat() const;
  /// [lo, hi] with lo <= hi.
  Range range() const;
  /// An array of [x, y, z].
  std::vector<Vec3> vec3_list() const;

 private:
  void expect_object() const;
  /// Fails unless this is an array of exactly `size` elements.
  void expect_array(std::size_t size, const std::string& what) const;
  /// Element i of an array as by real().
  Real real_element(std::size_t index) const;

  const Json* value_;
  JsonPointer path_;
  const std::string* file_;
};

}  // namespace impulse
