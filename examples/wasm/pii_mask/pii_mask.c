/*
 * pii_mask: masks personal data inside a JSON record value.
 *
 * Rules (the Zig version implements exactly the same ones):
 *   - a string or number whose member name contains "password", "secret",
 *     "token" or "api_key" (any case) becomes the string "***";
 *   - inside every other string, an e-mail address keeps the first character
 *     of its local part: alice@example.com -> a***@example.com;
 *   - inside every other string, a card number (13 to 19 digits, optionally
 *     grouped by single spaces or dashes) keeps its last four digits:
 *     4111 1111 1111 1111 -> **** **** **** 1111.
 * A null or empty value is left alone; a value with an unterminated string
 * fails the record.
 */
#include "smt_guest.h"
#include "smt_json.h"

static const char *const SECRET_WORDS[] = {"password", "secret", "token", "api_key"};

static int is_local_char(uint8_t c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '_' || c == '%' || c == '+' || c == '-';
}

static int is_domain_char(uint8_t c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
}

static int is_digit(uint8_t c) { return c >= '0' && c <= '9'; }

static uint8_t lower(uint8_t c) { return (c >= 'A' && c <= 'Z') ? (uint8_t)(c + 32) : c; }

/* Whether the member name S[0..N) contains one of SECRET_WORDS, ignoring case. */
static int is_secret_name(const uint8_t *s, uint32_t n) {
    for (uint32_t w = 0; w < sizeof SECRET_WORDS / sizeof *SECRET_WORDS; w++) {
        uint32_t word_len = (uint32_t)strlen(SECRET_WORDS[w]);
        for (uint32_t i = 0; i + word_len <= n; i++) {
            uint32_t k = 0;
            while (k < word_len && lower(s[i + k]) == (uint8_t)SECRET_WORDS[w][k]) k++;
            if (k == word_len) return 1;
        }
    }
    return 0;
}

/* An output buffer sized by the caller for the worst case. */
typedef struct {
    uint8_t *data;
    uint32_t len;
} out_buf;

static void emit(out_buf *out, const uint8_t *s, uint32_t n) {
    memcpy(out->data + out->len, s, n);
    out->len += n;
}

static void emit_byte(out_buf *out, uint8_t c) { out->data[out->len++] = c; }

/* If an e-mail address starts at S[I], writes it masked and returns its end; else 0. */
static uint32_t mask_email(out_buf *out, const uint8_t *s, uint32_t i, uint32_t end) {
    uint32_t at = i;
    while (at < end && is_local_char(s[at])) at++;
    if (at == i || at >= end || s[at] != '@') return 0;
    uint32_t domain_end = at + 1;
    while (domain_end < end && is_domain_char(s[domain_end])) domain_end++;
    while (domain_end > at + 1 && s[domain_end - 1] == '.') domain_end--; /* "mail me at a@b.com." */
    int has_dot = 0;
    for (uint32_t k = at + 2; k + 1 < domain_end; k++) has_dot |= s[k] == '.';
    if (!has_dot) return 0;
    emit_byte(out, s[i]);
    emit(out, (const uint8_t *)"***", 3);
    emit(out, s + at, domain_end - at);
    return domain_end;
}

/* S[I] is a digit starting a run: writes the run (masked when it is a card number), returns its end. */
static uint32_t mask_card(out_buf *out, const uint8_t *s, uint32_t i, uint32_t end) {
    uint32_t run_end = i, digits = 0;
    while (run_end < end) {
        if (is_digit(s[run_end])) {
            digits++;
            run_end++;
        } else if ((s[run_end] == ' ' || s[run_end] == '-') && run_end + 1 < end && is_digit(s[run_end + 1])) {
            run_end++;
        } else {
            break;
        }
    }
    uint32_t seen = 0;
    for (uint32_t k = i; k < run_end; k++) {
        int hide = digits >= 13 && digits <= 19 && is_digit(s[k]) && seen++ < digits - 4;
        emit_byte(out, hide ? '*' : s[k]);
    }
    return run_end;
}

/* Writes the contents of a JSON string S[start..end) (quotes excluded) with e-mails and cards masked. */
static void mask_text(out_buf *out, const uint8_t *s, uint32_t start, uint32_t end) {
    uint32_t i = start;
    while (i < end) {
        uint8_t c = s[i];
        if (c == '\\') { /* an escape is opaque: copy it whole */
            emit(out, s + i, i + 1 < end ? 2 : 1);
            i += 2;
            continue;
        }
        int word_start = i == start || !is_local_char(s[i - 1]);
        if (word_start && is_local_char(c)) {
            uint32_t after = mask_email(out, s, i, end);
            if (after) {
                i = after;
                continue;
            }
        }
        if (is_digit(c) && (i == start || !is_digit(s[i - 1]))) {
            i = mask_card(out, s, i, end);
            continue;
        }
        emit_byte(out, c);
        i++;
    }
}

/* Rewrites the JSON text S[0..N) into OUT; returns 0, or -1 when a string is unterminated. */
static int mask_json(out_buf *out, const uint8_t *s, uint32_t n) {
    int secret_member = 0;  /* the last member name was a secret one */
    uint8_t previous = 0;   /* the last structural character written */
    uint32_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        int is_member_value = previous == ':' && secret_member;
        if (c == '"') {
            int64_t string_end = smt_json_string_end(s, n, i);
            if (string_end < 0) return -1;
            int64_t next = smt_json_skip_ws(s, n, (uint32_t)string_end);
            if (next < n && s[next] == ':') { /* a member name */
                secret_member = is_secret_name(s + i + 1, (uint32_t)string_end - i - 2);
                emit(out, s + i, (uint32_t)string_end - i);
            } else if (is_member_value) {
                emit(out, (const uint8_t *)"\"***\"", 5);
            } else {
                emit_byte(out, '"');
                mask_text(out, s, i + 1, (uint32_t)string_end - 1);
                emit_byte(out, '"');
            }
            previous = '"';
            i = (uint32_t)string_end;
        } else if (is_member_value && (c == '-' || is_digit(c))) {
            int64_t number_end = smt_json_value_end(s, n, i);
            emit(out, (const uint8_t *)"\"***\"", 5);
            previous = '0';
            i = (uint32_t)number_end;
        } else {
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') previous = c;
            emit_byte(out, c);
            i++;
        }
    }
    return 0;
}

SMT_EXPORT("pii_mask") smt_result pii_mask(void) {
    uint32_t len;
    uint8_t *value = smt_get_value(&len);
    if (value == NULL) return SMT_OK;
    /* Worst case growth: "k":1 -> "k":"***" adds 4 bytes for every 5 read. */
    out_buf out = {smt_alloc(2 * len + 16), 0};
    int status = mask_json(&out, value, len);
    if (status == 0) smt_set_value(out.data, out.len);
    smt_free(out.data, 2 * len + 16);
    smt_free(value, len);
    return status == 0 ? SMT_OK : smt_error("pii_mask: the record value is not valid JSON (unterminated string)");
}
