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
 *   - the entry function returns smt_result: SMT_OK, or smt_error("why").
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

/* Unpacks a getter's (ptr << 32) | len; *len receives the length. */
static inline uint8_t *smt__unpack(int64_t packed, uint32_t *len) {
    *len = (uint32_t)((uint64_t)packed & 0xffffffffu);
    return (uint8_t *)(uintptr_t)((uint64_t)packed >> 32);
}

/* Each getter returns a buffer the guest owns (free it with smt_free), or
 * NULL with *len == 0 when the part is null or empty. */
static inline uint8_t *smt_get_key(uint32_t *len) { return smt__unpack(smt__host_get_key(), len); }
static inline uint8_t *smt_get_value(uint32_t *len) { return smt__unpack(smt__host_get_value(), len); }
static inline uint8_t *smt_get_topic(uint32_t *len) { return smt__unpack(smt__host_get_topic(), len); }
static inline uint8_t *smt_get_record(uint32_t *len) { return smt__unpack(smt__host_get_record(), len); }
/* The last header named NAME (NUL-terminated), or NULL when there is none. */
static inline uint8_t *smt_get_header(const char *name, uint32_t *len) {
    return smt__unpack(smt__host_get_header((uint8_t *)name, (uint32_t)strlen(name)), len);
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

/* Fails the record with MESSAGE (a NUL-terminated string that must outlive
 * the call, e.g. a literal): bit 31 of the length marks an error. */
static inline smt_result smt_error(const char *message) {
    uint64_t len = (uint64_t)strlen(message) & 0x7fffffffu;
    return (smt_result)(((uint64_t)(uintptr_t)message << 32) | len | 0x80000000u);
}

#ifdef __cplusplus
}
#endif
#endif /* SMT_GUEST_H */
