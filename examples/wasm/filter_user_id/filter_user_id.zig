//! filter_user_id: keeps only records whose JSON object value has a non-null
//! top-level "user_id"; drops the rest (including null values).  A value that
//! is not a JSON object fails the record.
const smt = @import("smt");

export fn filter_user_id() smt.Result {
    const value = smt.getValue();
    if (value.len == 0) {
        smt.dropRecord();
        return smt.ok;
    }
    defer smt.free(value);
    const user_id = smt.json.objectGet(value, "user_id") catch
        return smt.fail("filter_user_id: the record value is not a JSON object");
    const keep = if (user_id) |text| !isNull(text) else false;
    if (!keep) smt.dropRecord();
    return smt.ok;
}

fn isNull(text: []const u8) bool {
    return text.len == 4 and text[0] == 'n' and text[1] == 'u' and text[2] == 'l' and text[3] == 'l';
}
