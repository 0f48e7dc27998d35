// Output files of the `trellis` command (output_files.hpp).
#include "output_files.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "trellis/core/errors.hpp"
#include "trellis/io/matrix_market.hpp"

namespace trellis::cli {

void probe_writable(const std::string& path, const std::string& what) {
  std::error_code ec;
  const bool existed = std::filesystem::exists(path, ec);
  {
    std::ofstream probe(path, std::ios::app);
    if (!probe) throw InputError(what + ": cannot write '" + path + "': " + std::strerror(errno));
  }
  if (!existed) std::filesystem::remove(path, ec);
}

const char* system_folder_of(const std::string& path) {
  std::error_code ec;
  const std::string absolute = std::filesystem::absolute(path, ec).lexically_normal().string();
  for (const char* system : {"/dev/", "/proc/"})
    if (absolute.rfind(system, 0) == 0) return system;
  return nullptr;
}

bool exists_not_regular(const std::string& path) {
  std::error_code ec;
  const auto kind = std::filesystem::status(path, ec);
  return std::filesystem::exists(kind) && !std::filesystem::is_regular_file(kind);
}

void check_json_path(const std::string& path) {
  // A device or /proc file is no place for a document, and a failed write
  // removes the file it began: only files in folders of the user's.
  if (const char* system = system_folder_of(path))
    throw InputError("--json '" + path + "' is in " + system + ": --json writes a regular file; give a file in a " +
                     "folder of yours");
  if (io::is_gzip_path(path))
    throw InputError("--json '" + path + "': the document is plain JSON, not gzip-compressed; give FILE.json");
  if (exists_not_regular(path))
    throw InputError("--json '" + path + "' is not a regular file; it takes the path of the JSON file to write");
  probe_writable(path, "--json");
}

void write_json_file(const std::string& path, const Json& doc) {
  // Bytes that are not UTF-8 (a file name) become U+FFFD, not an exception.
  const std::string text = doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw InputError("--json: cannot write '" + path + "': " + std::strerror(errno));
  errno = 0;
  out.write(text.data(), std::streamsize(text.size()));
  out.close();
  if (out.fail()) {
    const std::string why = errno ? std::strerror(errno) : "write failed";
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) std::filesystem::remove(path, ec);  // no half-written file
    throw InputError("--json: cannot write '" + path + "': " + why);
  }
  std::printf("json: %s\n", path.c_str());
}

}  // namespace trellis::cli
