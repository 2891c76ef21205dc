#pragma once
// The exception types thrown at the API boundary for misuse. Inside a step nothing throws.

#include <stdexcept>
#include <string>

namespace impulse {

/// Base of every error Impulse throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An argument is out of range, not finite, or inconsistent; the world is unchanged.
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

/// A handle names a body or joint that was removed (or never existed).
class StaleHandle : public Error {
 public:
  using Error::Error;
};

/// Something valid that this version of the engine cannot simulate yet.
class Unsupported : public Error {
 public:
  using Error::Error;
};

/// A scene file that cannot be loaded: names the file, the JSON path and the problem.
class SceneError : public Error {
 public:
  SceneError(std::string file, std::string json_path, const std::string& problem)
      : Error(file + ": " + (json_path.empty() ? std::string("/") : json_path) + ": " + problem),
        file_(std::move(file)),
        json_path_(std::move(json_path)) {}
  const std::string& file() const { return file_; }
  /// A JSON pointer such as /bodies/3/shape/radius ("" is the document).
  const std::string& json_path() const { return json_path_; }

 private:
  std::string file_;
  std::string json_path_;
};

}  // namespace impulse
