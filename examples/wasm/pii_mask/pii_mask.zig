//! pii_mask: masks personal data inside a JSON record value.
//!
//! Rules (the C version implements exactly the same ones):
//!   - a string or number whose member name contains "password", "secret",
//!     "token" or "api_key" (any case) becomes the string "***";
//!   - inside every other string, an e-mail address keeps the first character
//!     of its local part: alice@example.com -> a***@example.com;
//!   - inside every other string, a card number (13 to 19 digits, optionally
//!     grouped by single spaces or dashes) keeps its last four digits:
//!     4111 1111 1111 1111 -> **** **** **** 1111.
//! A null or empty value is left alone; a value with an unterminated string
//! fails the record.
const smt = @import("smt");
const json = smt.json;

const secret_words = [_][]const u8{ "password", "secret", "token", "api_key" };

fn isLocalChar(c: u8) bool {
    return switch (c) {
        'a'...'z', 'A'...'Z', '0'...'9', '.', '_', '%', '+', '-' => true,
        else => false,
    };
}

fn isDomainChar(c: u8) bool {
    return switch (c) {
        'a'...'z', 'A'...'Z', '0'...'9', '.', '-' => true,
        else => false,
    };
}

fn isDigit(c: u8) bool {
    return c >= '0' and c <= '9';
}

fn lower(c: u8) u8 {
    return if (c >= 'A' and c <= 'Z') c + 32 else c;
}

/// Whether the member name contains one of `secret_words`, ignoring case.
fn isSecretName(name: []const u8) bool {
    for (secret_words) |word| {
        if (name.len < word.len) continue;
        var i: usize = 0;
        while (i + word.len <= name.len) : (i += 1) {
            var k: usize = 0;
            while (k < word.len and lower(name[i + k]) == word[k]) k += 1;
            if (k == word.len) return true;
        }
    }
    return false;
}

/// An output buffer sized by the caller for the worst case.
const Out = struct {
    data: []u8,
    len: usize = 0,

    fn emit(out: *Out, bytes: []const u8) void {
        @memcpy(out.data[out.len..][0..bytes.len], bytes);
        out.len += bytes.len;
    }

    fn emitByte(out: *Out, c: u8) void {
        out.data[out.len] = c;
        out.len += 1;
    }
};

/// If an e-mail address starts at `s[i]`, writes it masked and returns its end.
fn maskEmail(out: *Out, s: []const u8, i: usize) ?usize {
    var at = i;
    while (at < s.len and isLocalChar(s[at])) at += 1;
    if (at == i or at >= s.len or s[at] != '@') return null;
    var domain_end = at + 1;
    while (domain_end < s.len and isDomainChar(s[domain_end])) domain_end += 1;
    while (domain_end > at + 1 and s[domain_end - 1] == '.') domain_end -= 1; // "mail me at a@b.com."
    var has_dot = false;
    var k = at + 2;
    while (k + 1 < domain_end) : (k += 1) has_dot = has_dot or s[k] == '.';
    if (!has_dot) return null;
    out.emitByte(s[i]);
    out.emit("***");
    out.emit(s[at..domain_end]);
    return domain_end;
}

/// `s[i]` is a digit starting a run: writes the run (masked when it is a card number), returns its end.
fn maskCard(out: *Out, s: []const u8, i: usize) usize {
    var run_end = i;
    var digits: usize = 0;
    while (run_end < s.len) {
        if (isDigit(s[run_end])) {
            digits += 1;
            run_end += 1;
        } else if ((s[run_end] == ' ' or s[run_end] == '-') and run_end + 1 < s.len and isDigit(s[run_end + 1])) {
            run_end += 1;
        } else break;
    }
    const is_card = digits >= 13 and digits <= 19;
    var seen: usize = 0;
    for (s[i..run_end]) |c| {
        var hide = false;
        if (is_card and isDigit(c)) {
            hide = seen < digits - 4;
            seen += 1;
        }
        out.emitByte(if (hide) '*' else c);
    }
    return run_end;
}

/// Writes the contents of a JSON string (quotes excluded) with e-mails and cards masked.
fn maskText(out: *Out, s: []const u8) void {
    var i: usize = 0;
    while (i < s.len) {
        const c = s[i];
        if (c == '\\') { // an escape is opaque: copy it whole
            const n: usize = if (i + 1 < s.len) 2 else 1;
            out.emit(s[i .. i + n]);
            i += 2;
            continue;
        }
        const word_start = i == 0 or !isLocalChar(s[i - 1]);
        if (word_start and isLocalChar(c)) {
            if (maskEmail(out, s, i)) |after| {
                i = after;
                continue;
            }
        }
        if (isDigit(c) and (i == 0 or !isDigit(s[i - 1]))) {
            i = maskCard(out, s, i);
            continue;
        }
        out.emitByte(c);
        i += 1;
    }
}

/// Rewrites the JSON text `s` into `out`.
fn maskJson(out: *Out, s: []const u8) json.Error!void {
    var secret_member = false; // the last member name was a secret one
    var previous: u8 = 0; // the last structural character written
    var i: usize = 0;
    while (i < s.len) {
        const c = s[i];
        const is_member_value = previous == ':' and secret_member;
        if (c == '"') {
            const string_end = try json.stringEnd(s, i);
            const next = json.skipWs(s, string_end);
            if (next < s.len and s[next] == ':') { // a member name
                secret_member = isSecretName(s[i + 1 .. string_end - 1]);
                out.emit(s[i..string_end]);
            } else if (is_member_value) {
                out.emit("\"***\"");
            } else {
                out.emitByte('"');
                maskText(out, s[i + 1 .. string_end - 1]);
                out.emitByte('"');
            }
            previous = '"';
            i = string_end;
        } else if (is_member_value and (c == '-' or isDigit(c))) {
            const number_end = try json.valueEnd(s, i);
            out.emit("\"***\"");
            previous = '0';
            i = number_end;
        } else {
            if (c != ' ' and c != '\t' and c != '\n' and c != '\r') previous = c;
            out.emitByte(c);
            i += 1;
        }
    }
}

export fn pii_mask() smt.Result {
    const value = smt.getValue();
    if (value.len == 0) return smt.ok;
    defer smt.free(value);
    // Worst case growth: "k":1 -> "k":"***" adds 4 bytes for every 5 read.
    var out = Out{ .data = smt.make(2 * value.len + 16) };
    defer smt.free(out.data);
    maskJson(&out, value) catch return smt.fail("pii_mask: the record value is not valid JSON (unterminated string)");
    smt.setValue(out.data[0..out.len]);
    return smt.ok;
}
