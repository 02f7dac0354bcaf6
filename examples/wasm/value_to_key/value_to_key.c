/* value_to_key: sets the record key to a copy of the record value. */
#include "smt_guest.h"

SMT_EXPORT("value_to_key") smt_result value_to_key(void) {
    uint32_t len;
    uint8_t *value = smt_get_value(&len);
    if (value == NULL) return smt_error("value_to_key: the record has no value to use as its key");
    smt_set_key(value, len);
    smt_free(value, len);
    return SMT_OK;
}
