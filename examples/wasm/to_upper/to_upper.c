/* to_upper: upper-cases the ASCII letters of the record value (other bytes kept). */
#include "smt_guest.h"

SMT_EXPORT("to_upper") smt_result to_upper(void) {
    uint32_t len;
    uint8_t *value = smt_get_value(&len);
    if (value == NULL) return SMT_OK; /* null or empty value: nothing to change */
    for (uint32_t i = 0; i < len; i++) {
        if (value[i] >= 'a' && value[i] <= 'z') value[i] -= 'a' - 'A';
    }
    smt_set_value(value, len);
    smt_free(value, len);
    return SMT_OK;
}
