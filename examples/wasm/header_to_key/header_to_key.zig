//! header_to_key: sets the record key to the last header named by the guest
//! config `header` (transforms.<alias>.config.header); fails the record when
//! that header is missing.
const smt = @import("smt");

export fn header_to_key() smt.Result {
    const name = smt.getConfig("header") orelse
        return smt.fail("header_to_key: the guest config 'header' is not set (transforms.<alias>.config.header)");
    defer smt.free(name);
    const header = smt.getHeader(name) orelse &[_]u8{};
    if (header.len == 0) return smt.fail("header_to_key: the record has no such header, or it is empty");
    defer smt.free(header);
    smt.setKey(header);
    return smt.ok;
}
