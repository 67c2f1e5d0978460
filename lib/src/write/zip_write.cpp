// The framing of an .npz of one stored member: the general framing (zip_members.hpp) of a
// one-member archive whose member is streamed.
//
// The local header has flag bit 3 set: its CRC field is 0 and the real CRC follows the data in
// a data descriptor, so the member is streamed once and never patched (the output may be a
// pipe). Its sizes are known in advance and written anyway, which readers that stream a
// stored member need.
#include <libdeflate.h>

#include "tslice/container.hpp"
#include "write/zip_members.hpp"

namespace tslice {

namespace {

zip::MemberFrame streamed_member(std::string_view member, std::uint64_t member_size, std::uint32_t crc32) {
    zip::MemberFrame frame;
    frame.name = std::string(member);
    frame.descriptor = true;
    frame.crc32 = crc32;
    frame.size = frame.stored_size = member_size;
    return frame;  // stored, and its local header starts the archive
}

}  // namespace

std::uint32_t crc32_update(std::uint32_t crc, const std::byte* bytes, std::size_t size) {
    return libdeflate_crc32(crc, bytes, size);
}

std::string npz_prefix(std::string_view member, std::uint64_t member_size) {
    return zip::local_header(streamed_member(member, member_size, 0));
}

std::string npz_suffix(std::string_view member, std::uint64_t member_size, std::uint32_t crc32) {
    const zip::MemberFrame frame = streamed_member(member, member_size, crc32);
    const std::string descriptor = zip::data_descriptor(frame);
    const std::uint64_t directory_offset = zip::local_header(frame).size() + member_size + descriptor.size();
    return descriptor + zip::directory({frame}, directory_offset);
}

}  // namespace tslice
