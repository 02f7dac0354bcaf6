/* Uses every helper of the C SDK once, so a test can hold each to the host ABI. */
#include "smt_guest.h"

/* Writes N in decimal to BUF; returns the length. */
static uint32_t format_int(int64_t n, char *buf) {
    char digits[24];
    uint32_t len = 0, out = 0;
    uint64_t magnitude = n < 0 ? (uint64_t)(-(n + 1)) + 1 : (uint64_t)n;
    do {
        digits[len++] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude);
    if (n < 0) buf[out++] = '-';
    while (len) buf[out++] = digits[--len];
    return out;
}

static void set_int_header(const char *name, int64_t n) {
    char buf[24];
    smt_set_header(name, buf, format_int(n, buf));
}

/* topic -> topic + ".out"; timestamp + 1000; headers: partition, offset, greeting (guest
 * config), key-was (the old key); key <- the value of header "next-key"; value kept. */
SMT_EXPORT("tour") smt_result tour(void) {
    uint32_t topic_len;
    uint8_t *topic = smt_get_topic(&topic_len);
    uint8_t *routed = smt_alloc(topic_len + 4);
    memcpy(routed, topic, topic_len);
    memcpy(routed + topic_len, ".out", 4);
    smt_set_topic((const char *)routed, topic_len + 4);
    smt_free(routed, topic_len + 4);
    smt_free(topic, topic_len);

    int64_t timestamp = smt_get_timestamp();
    if (timestamp >= 0) smt_set_timestamp(timestamp + 1000);

    set_int_header("partition", smt_get_partition());
    set_int_header("offset", smt_get_offset());

    uint32_t greeting_len;
    uint8_t *greeting = smt_get_config("greeting", &greeting_len);
    if (greeting) {
        smt_set_header("greeting", greeting, greeting_len);
        smt_free(greeting, greeting_len);
    }

    uint32_t key_len;
    uint8_t *key = smt_get_key(&key_len);
    smt_set_header("key-was", key, key_len);
    smt_free(key, key_len);

    uint32_t next_len;
    uint8_t *next = smt_get_header("next-key", &next_len);
    if (next) {
        smt_set_key(next, next_len);
        smt_free(next, next_len);
    }

    uint32_t value_len;
    uint8_t *value = smt_get_value(&value_len);
    smt_set_value(value, value_len);
    smt_free(value, value_len);

    smt_log(SMT_INFO, "tour: done");
    return SMT_OK;
}

/* The record as JSON, unchanged, back to the host. */
SMT_EXPORT("record_roundtrip") smt_result record_roundtrip(void) {
    uint32_t len;
    uint8_t *json = smt_get_record(&len);
    smt_set_record(json, len);
    smt_free(json, len);
    return SMT_OK;
}

/* The record fails when the value says so. */
SMT_EXPORT("fail_on_request") smt_result fail_on_request(void) {
    uint32_t len;
    uint8_t *value = smt_get_value(&len);
    int fail = value && len == 4 && memcmp(value, "fail", 4) == 0;
    smt_free(value, len);
    return fail ? smt_error("sdk_tour: failed as asked") : SMT_OK;
}
