//! A tiny JSON scanner for guests (no allocation), reachable as `smt.json`.
//!
//! It finds where values start and end inside a JSON text so a guest can
//! read a field, walk an array or rewrite strings without a full parser.
//! Positions are byte offsets into `s`; malformed input gives
//! `error.MalformedJson` instead of reading past the end.
pub const Error = error{MalformedJson};

/// The first non-whitespace offset at or after `from` (`s.len` when none).
pub fn skipWs(s: []const u8, from: usize) usize {
    var i = from;
    while (i < s.len and (s[i] == ' ' or s[i] == '\t' or s[i] == '\n' or s[i] == '\r')) i += 1;
    return i;
}

/// `s[start]` is '"': the offset just past the closing quote.
pub fn stringEnd(s: []const u8, start: usize) Error!usize {
    var i = start + 1;
    while (i < s.len) : (i += 1) {
        if (s[i] == '\\') {
            i += 1;
        } else if (s[i] == '"') {
            return i + 1;
        }
    }
    return error.MalformedJson;
}

/// `s[start]` starts a value: the offset just past it.
pub fn valueEnd(s: []const u8, start: usize) Error!usize {
    if (start >= s.len) return error.MalformedJson;
    var i = start;
    switch (s[i]) {
        '"' => return stringEnd(s, i),
        '{', '[' => {
            var depth: usize = 0;
            while (i < s.len) {
                const c = s[i];
                if (c == '"') {
                    i = try stringEnd(s, i);
                    continue;
                }
                if (c == '{' or c == '[') depth += 1;
                if (c == '}' or c == ']') {
                    depth -= 1;
                    if (depth == 0) return i + 1;
                }
                i += 1;
            }
            return error.MalformedJson;
        },
        else => {
            while (i < s.len) : (i += 1) {
                switch (s[i]) {
                    ',', '}', ']', ' ', '\t', '\n', '\r', ':' => break,
                    else => {},
                }
            }
            if (i == start) return error.MalformedJson;
            return i;
        },
    }
}

/// The raw text of the top-level member `key` (no escapes) of the JSON object `s`,
/// or null when absent; the last duplicate wins.  `error.MalformedJson` when `s` is not an object.
pub fn objectGet(s: []const u8, key: []const u8) Error!?[]const u8 {
    var found: ?[]const u8 = null;
    var i = skipWs(s, 0);
    if (i >= s.len or s[i] != '{') return error.MalformedJson;
    i = skipWs(s, i + 1);
    if (i < s.len and s[i] == '}') return null;
    while (i < s.len) {
        if (s[i] != '"') return error.MalformedJson;
        const key_end = try stringEnd(s, i);
        const matches = std_eql(s[i + 1 .. key_end - 1], key);
        i = skipWs(s, key_end);
        if (i >= s.len or s[i] != ':') return error.MalformedJson;
        const value_start = skipWs(s, i + 1);
        const value_end = try valueEnd(s, value_start);
        if (matches) found = s[value_start..value_end];
        i = skipWs(s, value_end);
        if (i < s.len and s[i] == '}') {
            if (skipWs(s, i + 1) != s.len) return error.MalformedJson;
            return found;
        }
        if (i >= s.len or s[i] != ',') return error.MalformedJson;
        i = skipWs(s, i + 1);
    }
    return error.MalformedJson;
}

fn std_eql(a: []const u8, b: []const u8) bool {
    if (a.len != b.len) return false;
    for (a, b) |x, y| {
        if (x != y) return false;
    }
    return true;
}
