//! to_upper: upper-cases the ASCII letters of the record value (other bytes kept).
const smt = @import("smt");

export fn to_upper() smt.Result {
    const value = smt.getValue();
    if (value.len == 0) return smt.ok; // null or empty value: nothing to change
    defer smt.free(value);
    for (value) |*byte| {
        if (byte.* >= 'a' and byte.* <= 'z') byte.* -= 'a' - 'A';
    }
    smt.setValue(value);
    return smt.ok;
}
