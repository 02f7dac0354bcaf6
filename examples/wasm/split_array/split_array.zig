//! split_array: fans a JSON array value out into one record per element, in
//! order; each output keeps the key, topic and headers and carries the
//! element's JSON text as its value.  An empty array drops the record, a null
//! value passes unchanged, and any other value fails the record.
const smt = @import("smt");
const json = smt.json;

/// Walks the elements of the array `s`, emitting one record per element when `emit` is set.
fn walkElements(s: []const u8, emit: bool) json.Error!void {
    var i = json.skipWs(s, 0);
    if (i >= s.len or s[i] != '[') return error.MalformedJson;
    i = json.skipWs(s, i + 1);
    if (i < s.len and s[i] == ']') return expectEnd(s, i + 1);
    while (i < s.len) {
        const end = try json.valueEnd(s, i);
        if (emit) {
            smt.setValue(s[i..end]);
            smt.emitRecord();
        }
        i = json.skipWs(s, end);
        if (i < s.len and s[i] == ']') return expectEnd(s, i + 1);
        if (i >= s.len or s[i] != ',') return error.MalformedJson;
        i = json.skipWs(s, i + 1);
    }
    return error.MalformedJson;
}

fn expectEnd(s: []const u8, from: usize) json.Error!void {
    if (json.skipWs(s, from) != s.len) return error.MalformedJson;
}

export fn split_array() smt.Result {
    const value = smt.getValue();
    if (value.len == 0) return smt.ok;
    defer smt.free(value);
    // Check the whole array first so a bad value fails before anything is emitted.
    walkElements(value, false) catch return smt.fail("split_array: the record value is not a JSON array");
    walkElements(value, true) catch unreachable;
    smt.dropRecord(); // every element was emitted; the array itself is not output
    return smt.ok;
}
