//! Uses every helper of the Zig SDK once, so a test can hold each to the host ABI.
const smt = @import("smt");

/// Writes `n` in decimal to `buf`; returns the digits.
fn formatInt(n: i64, buf: *[24]u8) []const u8 {
    var digits: [24]u8 = undefined;
    var len: usize = 0;
    var magnitude: u64 = @abs(n);
    while (true) {
        digits[len] = @intCast('0' + magnitude % 10);
        len += 1;
        magnitude /= 10;
        if (magnitude == 0) break;
    }
    var out: usize = 0;
    if (n < 0) {
        buf[0] = '-';
        out = 1;
    }
    while (len > 0) {
        len -= 1;
        buf[out] = digits[len];
        out += 1;
    }
    return buf[0..out];
}

fn setIntHeader(name: []const u8, n: i64) void {
    var buf: [24]u8 = undefined;
    smt.setHeader(name, formatInt(n, &buf));
}

/// topic -> topic + ".out"; timestamp + 1000; headers: partition, offset, greeting (guest
/// config), key-was (the old key); key <- the value of header "next-key"; value kept.
export fn tour() smt.Result {
    const topic = smt.getTopic();
    defer smt.free(topic);
    const routed = smt.make(topic.len + 4);
    defer smt.free(routed);
    @memcpy(routed[0..topic.len], topic);
    @memcpy(routed[topic.len..], ".out");
    smt.setTopic(routed);

    const timestamp = smt.getTimestamp();
    if (timestamp >= 0) smt.setTimestamp(timestamp + 1000);

    setIntHeader("partition", smt.getPartition());
    setIntHeader("offset", smt.getOffset());

    if (smt.getConfig("greeting")) |greeting| {
        defer smt.free(greeting);
        smt.setHeader("greeting", greeting);
    }

    const key = smt.getKey();
    defer smt.free(key);
    smt.setHeader("key-was", key);

    if (smt.getHeader("next-key")) |next| {
        defer smt.free(next);
        smt.setKey(next);
    }

    const value = smt.getValue();
    defer smt.free(value);
    smt.setValue(value);

    smt.log(.info, "tour: done");
    return smt.ok;
}

/// The record as JSON, unchanged, back to the host.
export fn record_roundtrip() smt.Result {
    const json = smt.getRecord();
    defer smt.free(json);
    smt.setRecord(json);
    return smt.ok;
}

/// The record fails when the value says so.
export fn fail_on_request() smt.Result {
    const value = smt.getValue();
    defer smt.free(value);
    const fail = value.len == 4 and value[0] == 'f' and value[1] == 'a' and value[2] == 'i' and value[3] == 'l';
    return if (fail) smt.fail("sdk_tour: failed as asked") else smt.ok;
}

/// Reads one byte past the value when the value is "oob": a safety-checked build must trap.
export fn read_past_end() smt.Result {
    const value = smt.getValue();
    defer smt.free(value);
    var index: usize = 0;
    if (value.len == 3 and value[0] == 'o' and value[1] == 'o' and value[2] == 'b') index = value.len;
    smt.setKey(value[index .. index + 1]);
    return smt.ok;
}
