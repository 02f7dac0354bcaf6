/*
 * smt_guest.h - write Spark SMT WebAssembly transforms in C.
 *
 * The host (host_functions.WasmTransform) exchanges bytes with the guest
 * through linear memory.  This header hides the pointer packing:
 *
 *   - getters return a buffer the HOST allocated through our exported
 *     `alloc`; the guest owns it and must release it with smt_free();
 *   - setters take a pointer into guest memory; the host copies at once,
 *     so the guest may free (or reuse) its buffer right after the call;
 *   - the entry function returns smt_result: SMT_OK, or smt_error("why");
 *   - smt_drop_record() filters the record out, smt_emit_record() outputs a
 *     copy of it as it stands (fan-out); smt_get_config() reads
 *     transforms.<alias>.config.NAME.
 *
 * Build (see host_functions/sdk/build.py, which does this for you):
 *   clang --target=wasm32 -O2 -nostdlib -mbulk-memory -I sdk/c \
 *     -Wl,--no-entry guest.c sdk/c/smt_guest.c -o guest.wasm
 */
#ifndef SMT_GUEST_H
#define SMT_GUEST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The host ABI version this SDK speaks (exported as `smt_abi_version`). */
#define SMT_ABI_VERSION 1

/* ---- exporting the entry function -------------------------------------- */

/* Marks a function as a Wasm export under NAME (the `function.name` key). */
#define SMT_EXPORT(name) __attribute__((export_name(name), visibility("default")))

/* The entry function's return value: 0 for success, or a packed error. */
typedef int64_t smt_result;
#define SMT_OK ((smt_result)0)

/* ---- raw host imports (module "env"); prefer the typed helpers below ---- */

#define SMT__IMPORT(name) __attribute__((import_module("env"), import_name(name)))

SMT__IMPORT("get_key") int64_t smt__host_get_key(void);
SMT__IMPORT("set_key") void smt__host_set_key(uint8_t *ptr, uint32_t len);
SMT__IMPORT("get_value") int64_t smt__host_get_value(void);
SMT__IMPORT("set_value") void smt__host_set_value(uint8_t *ptr, uint32_t len);
SMT__IMPORT("get_topic") int64_t smt__host_get_topic(void);
SMT__IMPORT("set_topic") void smt__host_set_topic(uint8_t *ptr, uint32_t len);
SMT__IMPORT("get_header") int64_t smt__host_get_header(uint8_t *name, uint32_t name_len);
SMT__IMPORT("set_header") void smt__host_set_header(uint8_t *name, uint32_t name_len,
                                                    uint8_t *data, uint32_t data_len);
SMT__IMPORT("get_record") int64_t smt__host_get_record(void);
SMT__IMPORT("set_record") void smt__host_set_record(uint8_t *ptr, uint32_t len);
/* Extensions beyond the Kafka Connect Wasm transformer's ABI (host_functions/ABI.md). */
SMT__IMPORT("get_timestamp") int64_t smt__host_get_timestamp(void);
SMT__IMPORT("set_timestamp") void smt__host_set_timestamp(int64_t epoch_ms);
SMT__IMPORT("get_partition") int32_t smt__host_get_partition(void);
SMT__IMPORT("get_offset") int64_t smt__host_get_offset(void);
SMT__IMPORT("get_config") int64_t smt__host_get_config(uint8_t *name, uint32_t name_len);
SMT__IMPORT("drop_record") void smt__host_drop_record(void);
SMT__IMPORT("emit_record") void smt__host_emit_record(void);
SMT__IMPORT("log") void smt__host_log(int32_t level, uint8_t *ptr, uint32_t len);

/* ---- memory --------------------------------------------------------------- */

/* Allocates LEN bytes (never NULL; traps when memory cannot grow). */
uint8_t *smt_alloc(uint32_t len);
/* Releases a buffer from smt_alloc() or from a getter. NULL is ignored. */
void smt_free(void *ptr, uint32_t len);

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);

/* ---- typed helpers ---------------------------------------------------------- */

/* Unpacks a getter's (ptr << 32) | len; *len receives the length.  An empty
 * buffer is released at once, so callers only ever see NULL for "nothing". */
static inline uint8_t *smt__unpack(int64_t packed, uint32_t *len) {
    uint8_t *ptr = (uint8_t *)(uintptr_t)((uint64_t)packed >> 32);
    *len = (uint32_t)((uint64_t)packed & 0xffffffffu);
    if (*len == 0) {
        smt_free(ptr, 0);
        return NULL;
    }
    return ptr;
}

/* Each getter returns a buffer the guest owns (free it with smt_free), or
 * NULL with *len == 0 when the part is null or empty. */
static inline uint8_t *smt_get_key(uint32_t *len) { return smt__unpack(smt__host_get_key(), len); }
static inline uint8_t *smt_get_value(uint32_t *len) { return smt__unpack(smt__host_get_value(), len); }
static inline uint8_t *smt_get_topic(uint32_t *len) { return smt__unpack(smt__host_get_topic(), len); }
static inline uint8_t *smt_get_record(uint32_t *len) { return smt__unpack(smt__host_get_record(), len); }
/* The last header named NAME[0..NAME_LEN), or NULL when there is none. */
static inline uint8_t *smt_get_header_n(const void *name, uint32_t name_len, uint32_t *len) {
    return smt__unpack(smt__host_get_header((uint8_t *)name, name_len), len);
}
/* The last header named NAME (NUL-terminated), or NULL when there is none. */
static inline uint8_t *smt_get_header(const char *name, uint32_t *len) {
    return smt_get_header_n(name, (uint32_t)strlen(name), len);
}

/* Setters copy LEN bytes from BUF at once; BUF stays the guest's. */
static inline void smt_set_key(const void *buf, uint32_t len) { smt__host_set_key((uint8_t *)buf, len); }
static inline void smt_set_value(const void *buf, uint32_t len) { smt__host_set_value((uint8_t *)buf, len); }
static inline void smt_set_topic(const char *topic, uint32_t len) { smt__host_set_topic((uint8_t *)topic, len); }
static inline void smt_set_record(const void *json, uint32_t len) { smt__host_set_record((uint8_t *)json, len); }
/* Appends a header NAME (NUL-terminated) = DATA[0..LEN). */
static inline void smt_set_header(const char *name, const void *data, uint32_t len) {
    smt__host_set_header((uint8_t *)name, (uint32_t)strlen(name), (uint8_t *)data, len);
}

/* The value of `transforms.<alias>.config.NAME`, or NULL when it is not set. */
static inline uint8_t *smt_get_config(const char *name, uint32_t *len) {
    return smt__unpack(smt__host_get_config((uint8_t *)name, (uint32_t)strlen(name)), len);
}

/* Timestamp in epoch milliseconds, or -1 when the record has none; -1 also removes it. */
static inline int64_t smt_get_timestamp(void) { return smt__host_get_timestamp(); }
static inline void smt_set_timestamp(int64_t epoch_ms) { smt__host_set_timestamp(epoch_ms); }
/* Where the record was read from; -1 when unknown. */
static inline int32_t smt_get_partition(void) { return smt__host_get_partition(); }
static inline int64_t smt_get_offset(void) { return smt__host_get_offset(); }

/* Filtering: the record is not output when the entry function returns. */
static inline void smt_drop_record(void) { smt__host_drop_record(); }
/* Fan-out: outputs a copy of the record as it stands now.  The record itself
 * is still output on return unless smt_drop_record() is called. */
static inline void smt_emit_record(void) { smt__host_emit_record(); }

/* Logs MESSAGE (NUL-terminated UTF-8) through the transform's logger. */
enum smt_log_level { SMT_DEBUG = 0, SMT_INFO = 1, SMT_WARN = 2, SMT_ERROR = 3 };
static inline void smt_log(enum smt_log_level level, const char *message) {
    smt__host_log((int32_t)level, (uint8_t *)message, (uint32_t)strlen(message));
}

/* Fails the record with MESSAGE (NUL-terminated).  The message is copied to
 * a buffer from smt_alloc() because the host deallocs what the entry function
 * returns; bit 31 of the length marks an error. */
static inline smt_result smt_error(const char *message) {
    uint32_t len = (uint32_t)strlen(message) & 0x7fffffffu;
    uint8_t *copy = smt_alloc(len);
    memcpy(copy, message, len);
    return (smt_result)(((uint64_t)(uintptr_t)copy << 32) | len | 0x80000000u);
}

#ifdef __cplusplus
}
#endif
#endif /* SMT_GUEST_H */
