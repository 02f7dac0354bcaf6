/*
 * smt_json.h - a tiny JSON scanner for guests (header-only, no allocation).
 *
 * It finds where values start and end inside a JSON text so a guest can
 * read a field, walk an array or rewrite strings without a full parser.
 * Positions are byte offsets into S[0..N); every function returns -1 on
 * malformed input instead of reading past N.
 */
#ifndef SMT_JSON_H
#define SMT_JSON_H

#include "smt_guest.h"

/* The first non-whitespace offset at or after I (N when there is none). */
static inline int64_t smt_json_skip_ws(const uint8_t *s, uint32_t n, uint32_t i) {
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
    return i;
}

/* S[I] is '"': the offset just past the closing quote. */
static inline int64_t smt_json_string_end(const uint8_t *s, uint32_t n, uint32_t i) {
    for (i++; i < n; i++) {
        if (s[i] == '\\') i++;
        else if (s[i] == '"') return (int64_t)i + 1;
    }
    return -1;
}

/* S[I] starts a value: the offset just past it. */
static inline int64_t smt_json_value_end(const uint8_t *s, uint32_t n, uint32_t i) {
    if (i >= n) return -1;
    if (s[i] == '"') return smt_json_string_end(s, n, i);
    if (s[i] == '{' || s[i] == '[') {
        uint32_t depth = 0;
        while (i < n) {
            uint8_t c = s[i];
            if (c == '"') {
                int64_t end = smt_json_string_end(s, n, i);
                if (end < 0) return -1;
                i = (uint32_t)end;
                continue;
            }
            if (c == '{' || c == '[') depth++;
            if (c == '}' || c == ']') {
                if (--depth == 0) return (int64_t)i + 1;
            }
            i++;
        }
        return -1;
    }
    uint32_t start = i;
    while (i < n && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' && s[i] != '\t' &&
           s[i] != '\n' && s[i] != '\r' && s[i] != ':') i++;
    return i > start ? (int64_t)i : -1;
}

/* Finds the top-level member KEY (raw bytes, no escapes) of the JSON object
 * S: 1 with [*start, *end) set to its value, 0 when absent, -1 when S is not
 * an object.  The last duplicate wins, as in most JSON readers. */
static inline int smt_json_object_get(const uint8_t *s, uint32_t n, const char *key,
                                      uint32_t *start, uint32_t *end) {
    uint32_t key_len = (uint32_t)strlen(key);
    int found = 0;
    int64_t i = smt_json_skip_ws(s, n, 0);
    if (i >= n || s[i] != '{') return -1;
    i = smt_json_skip_ws(s, n, (uint32_t)i + 1);
    if (i < n && s[i] == '}') return 0;
    while (i < n) {
        if (s[i] != '"') return -1;
        int64_t key_end = smt_json_string_end(s, n, (uint32_t)i);
        if (key_end < 0) return -1;
        int matches = (uint32_t)(key_end - i - 2) == key_len && memcmp(s + i + 1, key, key_len) == 0;
        i = smt_json_skip_ws(s, n, (uint32_t)key_end);
        if (i >= n || s[i] != ':') return -1;
        int64_t value_start = smt_json_skip_ws(s, n, (uint32_t)i + 1);
        int64_t value_end = smt_json_value_end(s, n, (uint32_t)value_start);
        if (value_end < 0) return -1;
        if (matches) {
            *start = (uint32_t)value_start;
            *end = (uint32_t)value_end;
            found = 1;
        }
        i = smt_json_skip_ws(s, n, (uint32_t)value_end);
        if (i < n && s[i] == '}') return smt_json_skip_ws(s, n, (uint32_t)i + 1) == n ? found : -1;
        if (i >= n || s[i] != ',') return -1;
        i = smt_json_skip_ws(s, n, (uint32_t)i + 1);
    }
    return -1;
}

#endif /* SMT_JSON_H */
