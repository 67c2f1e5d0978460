// A Zarr group's consolidated metadata, kept up to date with an array written into the group
// (zarr_consolidated.hpp).
#include "write/zarr_consolidated.hpp"

#include <cstdint>
#include <system_error>

#include "source/store_files.hpp"
#include "tslice/error.hpp"
#include "tslice/write.hpp"

namespace tslice {

namespace fs = std::filesystem;
using json::Node;

namespace {

// Consolidated metadata lists every array of a hierarchy, a few hundred bytes each.
constexpr std::uint64_t kMostBytes = std::uint64_t{256} << 20;

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
            const auto bytes = read_file(path.string(), where, kMostBytes);
            if (!bytes) fail_input(where + " was removed while tslice read it");
            Node root = parsed(std::string(reinterpret_cast<const char*>(bytes->data()), bytes->size()), where);
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
