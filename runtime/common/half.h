/*===- half.h - bf16 and f16 widened to f32 -------------------------------===*
 *
 * Private to the runtime (and its stand-in cuBLAS in unittests/): the two
 * 16-bit float formats read as f32, exactly.
 *
 *===----------------------------------------------------------------------===*/

#ifndef KILN_RUNTIME_COMMON_HALF_H
#define KILN_RUNTIME_COMMON_HALF_H

#include <stdint.h>
#include <string.h>

static inline float kiln_bf16_to_float(uint16_t bits) {
  uint32_t wide = (uint32_t)bits << 16;
  float x;
  memcpy(&x, &wide, sizeof(x));
  return x;
}

static inline float kiln_f16_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31, exponent = (h >> 10) & 31,
           mantissa = h & 1023, bits;
  if (exponent == 31) { /* inf, NaN */
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else { /* zero, subnormal: mantissa * 2^-24, exact in f32 */
    float value = (float)mantissa * 0x1p-24f;
    memcpy(&bits, &value, sizeof(bits));
    bits |= sign;
  }
  float x;
  memcpy(&x, &bits, sizeof(x));
  return x;
}

#endif /* KILN_RUNTIME_COMMON_HALF_H */
