"""Edits a kiln module file (runtime/module/module.c's layout) as a test
needs: another kiln version or format version, with a valid checksum, so
that the runtime's refusal is what is tested, not the checksum.

flip-byte OFFSET inverts every bit of the byte at OFFSET and leaves the
checksum as it was, so the module is corrupt whatever that byte held.

Usage: module_edit.py IN OUT kiln-version V | format-version N | flip-byte OFFSET
"""
import struct
import sys

MASK = (1 << 64) - 1


def rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & MASK


def mix(lane, word):
    lane ^= (word * 0x9E3779B97F4A7C15) & MASK
    return (rotl(lane, 31) * 0xBF58476D1CE4E5B9) & MASK


def checksum(data):
    """kiln_rt_module_checksum."""
    lanes = [0x243F6A8885A308D3, 0x13198A2E03707344,
             0xA4093822299F31D0, 0x082EFA98EC4E6C89]
    i = 0
    while i + 32 <= len(data):
        for lane in range(4):
            word = struct.unpack_from("<Q", data, i + 8 * lane)[0]
            lanes[lane] = mix(lanes[lane], word)
        i += 32
    h = len(data)
    for lane in lanes:
        h = mix(h, lane)
    tail, shift = 0, 0
    for byte in data[i:]:
        tail |= byte << shift
        shift += 8
        if shift == 64:
            h, tail, shift = mix(h, tail), 0, 0
    h = mix(h, tail)
    h ^= h >> 30
    h = (h * 0xBF58476D1CE4E5B9) & MASK
    h ^= h >> 27
    h = (h * 0x94D049BB133111EB) & MASK
    return h ^ (h >> 31)


def main():
    source, target, what, value = sys.argv[1:5]
    data = bytearray(open(source, "rb").read())
    if what == "flip-byte":
        offset = int(value)
        if not 32 <= offset < len(data):
            sys.exit("flip-byte: offset %d is outside the payload" % offset)
        before = data[offset]
        data[offset] ^= 0xFF
        assert data[offset] != before
        open(target, "wb").write(bytes(data))
        return
    header, payload = data[:32], data[32:]
    if what == "kiln-version":
        (length,) = struct.unpack_from("<I", payload, 0)
        encoded = value.encode()
        payload = (struct.pack("<I", len(encoded)) + encoded +
                   payload[4 + length:])
    elif what == "format-version":
        struct.pack_into("<H", header, 8, int(value))
    else:
        sys.exit("unknown edit " + what)
    struct.pack_into("<QQ", header, 16, len(payload), checksum(bytes(payload)))
    open(target, "wb").write(bytes(header) + bytes(payload))


if __name__ == "__main__":
    main()
