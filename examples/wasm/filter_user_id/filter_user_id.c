/* filter_user_id: keeps only records whose JSON object value has a non-null
 * top-level "user_id"; drops the rest (including null values).  A value that
 * is not a JSON object fails the record. */
#include "smt_guest.h"
#include "smt_json.h"

SMT_EXPORT("filter_user_id") smt_result filter_user_id(void) {
    uint32_t len;
    uint8_t *value = smt_get_value(&len);
    if (value == NULL) {
        smt_drop_record();
        return SMT_OK;
    }
    uint32_t start = 0, end = 0;
    int found = smt_json_object_get(value, len, "user_id", &start, &end);
    int is_null = found == 1 && end - start == 4 && memcmp(value + start, "null", 4) == 0;
    smt_free(value, len);
    if (found < 0) return smt_error("filter_user_id: the record value is not a JSON object");
    if (found == 0 || is_null) smt_drop_record();
    return SMT_OK;
}
