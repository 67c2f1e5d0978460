// A Zarr group's consolidated metadata, kept up to date with an array written into the group
// (zarr_consolidated.hpp).
#include "write/zarr_consolidated.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "tslice/error.hpp"
#include "tslice/write.hpp"

namespace tslice {

namespace fs = std::filesystem;
using json::Node;

namespace {

std::string read_whole(const fs::path& path) {
    const std::string shown = "'" + path.string() + "'";
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) fail_input("cannot read " + shown + ": " + std::strerror(errno));
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat info {};
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode))
        fail_input("cannot read " + shown + ": it is not a file (a group's consolidated metadata is one)");
    // Consolidated metadata lists every array of a hierarchy, a few hundred bytes each.
    constexpr off_t kMostBytes = off_t{256} << 20;
    if (info.st_size > kMostBytes)
        fail_input("cannot read " + shown + ": it holds " + std::to_string(info.st_size) +
                   " bytes, more than the 256 MiB tslice reads as a group's consolidated metadata");
    std::string text(static_cast<std::size_t>(info.st_size), '\0');
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t got = ::read(fd, text.data() + done, text.size() - done);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) fail_input("cannot read " + shown + ": " + std::strerror(errno));
        if (got == 0) break;
        done += static_cast<std::size_t>(got);
    }
    text.resize(done);
    return text;
}

Node parsed(const std::string& text, const std::string& where) {
    json::TreeErrors errors;
    errors.source = where;
    errors.kind = ErrorKind::Input;
    errors.subject = "the consolidated metadata";
    errors.advice = "";
    return json::parse_tree(text, errors);
}

}  // namespace

ConsolidatedMetadata::ConsolidatedMetadata(const fs::path& array) {
    // The groups are found up the absolute path, and named as the user wrote them as far as
    // that goes ("g.zarr/.zmetadata"), absolute beyond.
    const fs::path absolute = fs::absolute(array).lexically_normal();
    fs::path written = array.lexically_normal().parent_path();
    std::string key = absolute.filename().string();
    std::error_code error;
    for (fs::path group = absolute.parent_path(); fs::is_regular_file(group / ".zgroup", error);
         group = group.parent_path(), written = written.parent_path()) {
        const fs::path path = (written.empty() ? group : written) / ".zmetadata";
        if (fs::exists(path, error)) {
            const std::string where = "'" + path.string() + "'";
            Node root = parsed(read_whole(path), where);
            const Node* metadata = json::member(root, "metadata");
            if (!metadata || metadata->kind != Node::Kind::Object)
                fail_input(where + ": consolidated metadata without a \"metadata\" object; tslice writes the array "
                           "into the group only where it can list it there too (remove the file, or run "
                           "zarr.consolidate_metadata to remake it)");
            documents_.push_back({path, key, std::move(root)});
        }
        if (group == group.root_path()) break;
        key = group.filename().string() + "/" + key;
    }
}

void ConsolidatedMetadata::update(const std::string& zarray, const std::string& zattrs, bool sync) const {
    const Node array = parsed(zarray, ".zarray");
    const Node attributes = parsed(zattrs, ".zattrs");
    for (const Document& document : documents_) {
        Node root = document.root;
        for (json::Member& member : root.members) {
            if (member.first != "metadata" || member.second.kind != Node::Kind::Object) continue;
            std::vector<json::Member>& entries = member.second.members;
            const std::string below = document.key + "/";
            std::erase_if(entries, [&](const json::Member& entry) { return entry.first.starts_with(below); });
            entries.push_back({below + ".zarray", array});
            entries.push_back({below + ".zattrs", attributes});
        }
        bool given = false;
        const std::string text = json::render_whole(root) + "\n";
        WriteOptions options;
        options.sync = sync;
        write_text(document.path.string(), [&](std::string& out) {
            if (given) return false;
            out = text;
            return given = true;
        }, options);
    }
}

}  // namespace tslice
