//===- ByteStream.h - little-endian fields in a byte string -----*- C++ -*-===//
//
// The writer and bounds-checked reader of kiln's binary formats (host
// programs, compile-cache payloads): fixed-width little-endian integers,
// length-prefixed strings and byte blocks. A reader never reads past its
// input; every read says whether it could.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_BYTESTREAM_H
#define KILN_SUPPORT_BYTESTREAM_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Endian.h"

#include <cstring>
#include <string>
#include <vector>

namespace kiln {

class ByteWriter {
public:
  explicit ByteWriter(std::string &out) : out(out) {}
  template <typename T> void write(T value) {
    char bytes[sizeof(T)];
    llvm::support::endian::write<T, llvm::endianness::little>(bytes, value);
    out.append(bytes, sizeof(T));
  }
  void writeRaw(llvm::StringRef bytes) {
    out.append(bytes.data(), bytes.size());
  }
  /// A u64 size, then the bytes.
  void writeBytes(llvm::StringRef bytes) {
    write<uint64_t>(bytes.size());
    writeRaw(bytes);
  }
  /// A u32 size, then the characters.
  void writeString(llvm::StringRef s) {
    write<uint32_t>(static_cast<uint32_t>(s.size()));
    writeRaw(s);
  }

private:
  std::string &out;
};

class ByteReader {
public:
  explicit ByteReader(llvm::ArrayRef<char> in) : in(in) {}
  template <typename T> bool read(T &value) {
    if (remaining() < sizeof(T))
      return false;
    value = llvm::support::endian::read<T, llvm::endianness::little>(in.data() +
                                                                     position);
    position += sizeof(T);
    return true;
  }
  /// A u32 count of items of at least one byte each, at most `limit`.
  bool readCount(uint32_t &count, uint64_t limit) {
    return read(count) && count <= limit && count <= remaining();
  }
  bool readString(std::string &s) {
    uint32_t size;
    if (!read(size) || size > remaining())
      return false;
    s.assign(in.data() + position, size);
    position += size;
    return true;
  }
  bool readBytes(std::vector<char> &bytes) {
    uint64_t size;
    if (!read(size) || size > remaining())
      return false;
    bytes.assign(in.data() + position, in.data() + position + size);
    position += size;
    return true;
  }
  /// The next `size` bytes, as they are.
  bool readRaw(size_t size, llvm::StringRef &bytes) {
    if (size > remaining())
      return false;
    bytes = llvm::StringRef(in.data() + position, size);
    position += size;
    return true;
  }
  /// Consumes `expected` when the input continues with it.
  bool readMagic(llvm::StringRef expected) {
    if (remaining() < expected.size() ||
        std::memcmp(in.data() + position, expected.data(), expected.size()))
      return false;
    position += expected.size();
    return true;
  }
  size_t remaining() const { return in.size() - position; }

private:
  llvm::ArrayRef<char> in;
  size_t position = 0;
};

} // namespace kiln

#endif // KILN_SUPPORT_BYTESTREAM_H
