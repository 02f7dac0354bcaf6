//! value_to_key: sets the record key to a copy of the record value.
const smt = @import("smt");

export fn value_to_key() smt.Result {
    const value = smt.getValue();
    if (value.len == 0) return smt.fail("value_to_key: the record has no value to use as its key");
    defer smt.free(value);
    smt.setKey(value);
    return smt.ok;
}
