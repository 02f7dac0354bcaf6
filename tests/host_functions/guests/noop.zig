//! The smallest guest: imports nothing, exports the SDK's alloc/dealloc and an entry that succeeds.
const smt = @import("smt");

export fn noop() smt.Result {
    return smt.ok;
}

/// Lets tests check the packing of smt.fail() without a host.
export fn fail() smt.Result {
    return smt.fail("noop: failed on purpose");
}
