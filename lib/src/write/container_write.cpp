// Writing a container of several arrays (container_write.hpp).
#include "write/container_write.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "write/chunk_stream.hpp"
#include "tslice/container.hpp"
#include "tslice/error.hpp"
#include "tslice/source.hpp"
#include "write/zip_members.hpp"

namespace tslice {

namespace {

// The pieces a copy that cannot go through the kernel is read and written in.
constexpr std::size_t kCopyBytes = std::size_t{1} << 20;
// The most one copy_file_range call is asked for: a call copies until it is done, and a
// signal should not wait for a whole checkpoint.
constexpr std::uint64_t kCallBytes = std::uint64_t{256} << 20;

void put(OutputFile& output, const std::string& bytes) { write_all(output.fd(), bytes.data(), bytes.size(), output.name()); }

}  // namespace

void copy_input_bytes(OutputFile& output, const InputBytes& from, std::uint64_t offset, std::uint64_t size) {
    const Mapping& mapping = from.mapping();
    const auto file_offset = static_cast<std::uint64_t>(from.data() - mapping.data()) + offset;
    std::uint64_t done = 0;
    // The kernel copies from file to file (within one file system, without the bytes passing
    // through this process); it refuses other outputs (a pipe) and old kernels, at once.
    if (mapping.file() >= 0) {
        while (done < size) {
            auto in = static_cast<loff_t>(file_offset + done);
            const ssize_t copied = ::copy_file_range(mapping.file(), &in, output.fd(), nullptr,
                                                     static_cast<std::size_t>(std::min<std::uint64_t>(size - done, kCallBytes)), 0);
            if (copied > 0) {
                done += static_cast<std::uint64_t>(copied);
                continue;
            }
            if (copied < 0 && errno == EINTR) continue;
            break;  // refused, or the file ended early: the reads below say which
        }
    }
    std::vector<std::byte> buffer;
    while (done < size) {
        const std::size_t piece = static_cast<std::size_t>(std::min<std::uint64_t>(size - done, kCopyBytes));
        buffer.resize(piece);
        mapping.read(from.data() + offset + done, piece, buffer.data(), "the array being copied");
        write_all(output.fd(), reinterpret_cast<const char*>(buffer.data()), piece, output.name());
        done += piece;
    }
}

void write_container(const std::string& path, bool npz, const std::vector<ContainerEntry>& entries,
                     const std::string& metadata, bool sync) {
    OutputFile output(path);
    // The bytes of the arrays, kept and new: about the whole file (the zip framing aside).
    std::int64_t bytes = 0;
    for (const ContainerEntry& entry : entries)
        bytes += static_cast<std::int64_t>(entry.write ? entry.npy_header.size() + entry.data_bytes
                                           : npz       ? entry.member.stored_size
                                                       : entry.data_bytes);
    if (!npz) {
        std::vector<SafetensorsTensorHeader> tensors;
        tensors.reserve(entries.size());
        for (const ContainerEntry& entry : entries)
            tensors.push_back({entry.name, entry.dtype, entry.shape, entry.data_bytes});
        const std::string header = safetensors_prefix(tensors, metadata);
        output.expect(static_cast<std::int64_t>(header.size()) + bytes);
        put(output, header);
        for (std::size_t i = 0; i < entries.size(); ++i) {
            const ContainerEntry& entry = entries[i];
            if (entry.write) {
                entry.write(output, OutputFraming{});
                continue;
            }
            // Kept tensors that follow one another in the file are copied in one piece: a
            // checkpoint of thousands of tensors is then a few large copies, not thousands.
            std::uint64_t bytes = entry.data_bytes;
            while (i + 1 < entries.size() && !entries[i + 1].write && entries[i + 1].from == entry.from &&
                   entries[i + 1].offset == entry.offset + bytes)
                bytes += entries[++i].data_bytes;
            copy_input_bytes(output, *entry.from, entry.offset, bytes);
        }
        output.commit(sync);
        return;
    }
    output.expect(bytes);
    std::vector<zip::MemberFrame> frames;
    std::uint64_t at = 0;
    for (const ContainerEntry& entry : entries) {
        zip::MemberFrame frame;
        frame.name = entry.name;
        frame.offset = at;
        if (entry.write) {
            frame.descriptor = true;
            frame.size = frame.stored_size = entry.npy_header.size() + entry.data_bytes;
            const std::string header = zip::local_header(frame);
            OutputFraming framing;
            framing.prefix = header + entry.npy_header;
            framing.crc_from = header.size();
            framing.suffix = [&frame](std::uint32_t crc) {
                frame.crc32 = crc;
                return zip::data_descriptor(frame);
            };
            entry.write(output, framing);
            at += header.size() + frame.stored_size + zip::data_descriptor(frame).size();
        } else {
            frame.method = entry.member.method;
            frame.crc32 = entry.member.crc32;
            frame.stored_size = entry.member.stored_size;
            frame.size = entry.member.size;
            const std::string header = zip::local_header(frame);
            put(output, header);
            copy_input_bytes(output, *entry.from, entry.member.offset, entry.member.stored_size);
            at += header.size() + frame.stored_size;
        }
        frames.push_back(std::move(frame));
    }
    put(output, zip::directory(frames, at));
    output.commit(sync);
}

}  // namespace tslice
