#pragma once
// Output files of the `trellis` command: the writability probe run before any
// work (--history, --write-solution, --json), and --json's document.
#include <nlohmann/json.hpp>
#include <string>

namespace trellis::cli {

/// --json's document: keys in the order written; doubles in the shortest form
/// that reads back as the same double; NaN and infinities as null.
using Json = nlohmann::ordered_json;

/// Fails, naming `what` and the system's reason, when `path` cannot be
/// opened for writing; a file the probe created is removed again, so that a
/// run that fails later leaves no empty file behind.
void probe_writable(const std::string& path, const std::string& what);

/// "/dev/" or "/proc/" when `path` (made absolute) lies in one, else null:
/// system folders, where no output file of the command belongs.
const char* system_folder_of(const std::string& path);

/// Whether `path` exists and is something other than a regular file (a
/// folder, a device).
bool exists_not_regular(const std::string& path);

/// Fails before any work when --json's path cannot take the document: a path
/// in /dev or /proc, one ending in .gz (the document is plain JSON), one
/// that exists and is no regular file, or one that cannot be written.
void check_json_path(const std::string& path);

/// Writes `doc` to `path` (indented, a newline last) and says so. A write
/// that fails removes what it began, and is an InputError naming --json, the
/// path and the reason.
void write_json_file(const std::string& path, const Json& doc);

}  // namespace trellis::cli
