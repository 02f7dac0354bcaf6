/* split_array: fans a JSON array value out into one record per element, in
 * order; each output keeps the key, topic and headers and carries the
 * element's JSON text as its value.  An empty array drops the record, a null
 * value passes unchanged, and any other value fails the record. */
#include "smt_guest.h"
#include "smt_json.h"

/* Walks the elements of the array S[0..N), emitting one record per element
 * when EMIT is set; -1 when S is not an array. */
static int walk_elements(const uint8_t *s, uint32_t n, int emit) {
    int64_t i = smt_json_skip_ws(s, n, 0);
    if (i >= n || s[i] != '[') return -1;
    i = smt_json_skip_ws(s, n, (uint32_t)i + 1);
    if (i < n && s[i] == ']') return smt_json_skip_ws(s, n, (uint32_t)i + 1) == n ? 0 : -1;
    while (i < n) {
        int64_t end = smt_json_value_end(s, n, (uint32_t)i);
        if (end < 0) return -1;
        if (emit) {
            smt_set_value(s + i, (uint32_t)(end - i));
            smt_emit_record();
        }
        i = smt_json_skip_ws(s, n, (uint32_t)end);
        if (i < n && s[i] == ']') return smt_json_skip_ws(s, n, (uint32_t)i + 1) == n ? 0 : -1;
        if (i >= n || s[i] != ',') return -1;
        i = smt_json_skip_ws(s, n, (uint32_t)i + 1);
    }
    return -1;
}

SMT_EXPORT("split_array") smt_result split_array(void) {
    uint32_t len;
    uint8_t *value = smt_get_value(&len);
    if (value == NULL) return SMT_OK;
    /* Check the whole array first so a bad value fails before anything is emitted. */
    int status = walk_elements(value, len, 0);
    if (status == 0) walk_elements(value, len, 1);
    smt_free(value, len);
    if (status < 0) return smt_error("split_array: the record value is not a JSON array");
    smt_drop_record(); /* every element was emitted; the array itself is not output */
    return SMT_OK;
}
