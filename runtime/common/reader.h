/*===- reader.h - bounds-checked little-endian fields ---------------------===*
 *
 * The reader of the runtime's binary formats (host programs, modules): the
 * same fields lib/Support/ByteStream.h writes. A read never goes past the
 * input; each says whether it could.
 *
 *===----------------------------------------------------------------------===*/

#ifndef KILN_RT_COMMON_READER_H
#define KILN_RT_COMMON_READER_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct kiln_reader {
  const unsigned char *data;
  size_t size, position;
} kiln_reader;

static inline size_t kiln_reader_remaining(const kiln_reader *r) {
  return r->size - r->position;
}

static inline int kiln_read_le(kiln_reader *r, size_t bytes, uint64_t *out) {
  if (kiln_reader_remaining(r) < bytes)
    return 0;
  uint64_t value = 0;
  for (size_t i = 0; i < bytes; ++i)
    value |= (uint64_t)r->data[r->position + i] << (8 * i);
  r->position += bytes;
  *out = value;
  return 1;
}

static inline int kiln_read_u8(kiln_reader *r, uint8_t *out) {
  uint64_t v;
  return kiln_read_le(r, 1, &v) ? (*out = (uint8_t)v, 1) : 0;
}
static inline int kiln_read_u16(kiln_reader *r, uint16_t *out) {
  uint64_t v;
  return kiln_read_le(r, 2, &v) ? (*out = (uint16_t)v, 1) : 0;
}
static inline int kiln_read_u32(kiln_reader *r, uint32_t *out) {
  uint64_t v;
  return kiln_read_le(r, 4, &v) ? (*out = (uint32_t)v, 1) : 0;
}
static inline int kiln_read_i32(kiln_reader *r, int32_t *out) {
  uint64_t v;
  return kiln_read_le(r, 4, &v) ? (*out = (int32_t)(uint32_t)v, 1) : 0;
}
static inline int kiln_read_u64(kiln_reader *r, uint64_t *out) {
  return kiln_read_le(r, 8, out);
}
static inline int kiln_read_i64(kiln_reader *r, int64_t *out) {
  uint64_t v;
  return kiln_read_le(r, 8, &v) ? (*out = (int64_t)v, 1) : 0;
}

/* A u32 count of items of at least one byte each, at most `limit`. */
static inline int kiln_read_count(kiln_reader *r, uint32_t *count,
                                  uint64_t limit) {
  return kiln_read_u32(r, count) && *count <= limit &&
         *count <= kiln_reader_remaining(r);
}

/* A u32 length, then the characters: a new NUL-terminated string (free()
 * it), or 0. */
static inline int kiln_read_string(kiln_reader *r, char **out) {
  uint32_t size;
  if (!kiln_read_u32(r, &size) || size > kiln_reader_remaining(r))
    return 0;
  char *s = malloc((size_t)size + 1);
  if (!s)
    return 0;
  memcpy(s, r->data + r->position, size);
  s[size] = '\0';
  r->position += size;
  *out = s;
  return 1;
}

/* A u64 length, then the bytes: where they are in the input. */
static inline int kiln_read_block(kiln_reader *r, const unsigned char **bytes,
                                  size_t *size) {
  uint64_t length;
  if (!kiln_read_u64(r, &length) || length > kiln_reader_remaining(r))
    return 0;
  *bytes = r->data + r->position;
  *size = (size_t)length;
  r->position += (size_t)length;
  return 1;
}

static inline int kiln_read_magic(kiln_reader *r, const char *magic,
                                  size_t size) {
  if (kiln_reader_remaining(r) < size ||
      memcmp(r->data + r->position, magic, size) != 0)
    return 0;
  r->position += size;
  return 1;
}

#endif /* KILN_RT_COMMON_READER_H */
