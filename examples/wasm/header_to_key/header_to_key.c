/* header_to_key: sets the record key to the last header named by the guest
 * config `header` (transforms.<alias>.config.header); fails the record when
 * that header is missing. */
#include "smt_guest.h"

SMT_EXPORT("header_to_key") smt_result header_to_key(void) {
    uint32_t name_len;
    uint8_t *name = smt_get_config("header", &name_len);
    if (name == NULL) return smt_error("header_to_key: the guest config 'header' is not set (transforms.<alias>.config.header)");
    uint32_t len;
    uint8_t *header = smt_get_header_n(name, name_len, &len);
    smt_free(name, name_len);
    if (header == NULL) return smt_error("header_to_key: the record has no such header, or it is empty");
    smt_set_key(header, len);
    smt_free(header, len);
    return SMT_OK;
}
