//===- Npy.cpp - .npy reader and writer -----------------------------------===//

#include "kiln/Support/Npy.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace kiln;
using llvm::StringRef;

static llvm::Error npyError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The value of `key` in the header dict, up to the next top-level comma or
/// closing brace, or an empty string when the key is missing.
static StringRef findHeaderValue(StringRef header, StringRef key) {
  for (char quote : {'\'', '"'}) {
    std::string quoted = quote + key.str() + quote;
    size_t at = header.find(quoted);
    if (at == StringRef::npos)
      continue;
    StringRef rest = header.drop_front(at + quoted.size()).ltrim();
    if (!rest.consume_front(":"))
      return {};
    rest = rest.ltrim();
    int depth = 0;
    size_t end = 0;
    for (; end < rest.size(); ++end) {
      char c = rest[end];
      if (c == '(' || c == '[')
        ++depth;
      else if (c == ')' || c == ']')
        --depth;
      else if ((c == ',' || c == '}') && depth == 0)
        break;
    }
    return rest.take_front(end).trim();
  }
  return {};
}

static llvm::Expected<DType> parseDescr(StringRef descr) {
  if (descr.size() < 2 || (descr.front() != '\'' && descr.front() != '"') ||
      descr.back() != descr.front())
    return npyError("malformed 'descr' " + descr);
  StringRef d = descr.drop_front().drop_back();
  if (d == "|b1" || d == "b1" || d == "?")
    return DType::I1;
  if (d.size() >= 2 && d.front() == '>' && d != ">f1")
    return npyError("big-endian data ('" + d +
                    "') is not supported; save it little-endian");
  StringRef code = d;
  if (!code.empty() &&
      (code.front() == '<' || code.front() == '=' || code.front() == '|'))
    code = code.drop_front();
  if (code == "f4")
    return DType::F32;
  if (code == "f8")
    return DType::F64;
  if (code == "f2")
    return DType::F16;
  if (code == "i4")
    return DType::I32;
  if (code == "i8")
    return DType::I64;
  return npyError("unsupported dtype '" + d +
                  "'; kiln reads float32, float64, float16, int32, int64 "
                  "and bool");
}

static llvm::Expected<std::vector<int64_t>> parseShape(StringRef text) {
  if (!text.consume_front("(") || !text.consume_back(")"))
    return npyError("malformed 'shape' " + text);
  std::vector<int64_t> shape;
  llvm::SmallVector<StringRef> parts;
  text.split(parts, ',');
  for (StringRef part : parts) {
    part = part.trim();
    if (part.empty())
      continue;
    // NumPy 1.x may write "3L" on some platforms.
    part.consume_back("L");
    int64_t dim;
    if (part.getAsInteger(10, dim) || dim < 0)
      return npyError("malformed dimension '" + part + "' in 'shape'");
    shape.push_back(dim);
  }
  return shape;
}

llvm::Expected<HostTensor> kiln::parseNpy(StringRef bytes) {
  static constexpr char magic[] = "\x93NUMPY";
  if (!bytes.starts_with(StringRef(magic, 6)))
    return npyError("not a .npy file (bad magic)");
  if (bytes.size() < 10)
    return npyError("truncated .npy header");
  unsigned major = static_cast<unsigned char>(bytes[6]);
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = static_cast<unsigned char>(bytes[8]) |
                   static_cast<unsigned char>(bytes[9]) << 8;
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return npyError("truncated .npy header");
    headerLength = 0;
    for (int i = 0; i < 4; ++i)
      headerLength |=
          static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i]))
          << (8 * i);
    headerStart = 12;
  } else {
    return npyError("unsupported .npy version " + llvm::Twine(major));
  }
  if (bytes.size() < headerStart + headerLength)
    return npyError("truncated .npy header");
  StringRef header = bytes.substr(headerStart, headerLength);

  StringRef descr = findHeaderValue(header, "descr");
  StringRef fortran = findHeaderValue(header, "fortran_order");
  StringRef shapeText = findHeaderValue(header, "shape");
  if (descr.empty() || fortran.empty() || shapeText.empty())
    return npyError("malformed .npy header: " + header.trim());
  llvm::Expected<DType> dtype = parseDescr(descr);
  if (!dtype)
    return dtype.takeError();
  if (fortran == "True")
    return npyError("Fortran-order arrays are not supported; save a "
                    "C-contiguous array");
  if (fortran != "False")
    return npyError("malformed 'fortran_order' " + fortran);
  llvm::Expected<std::vector<int64_t>> shape = parseShape(shapeText);
  if (!shape)
    return shape.takeError();

  // Guard the element count against overflow before allocating.
  int64_t count = 1;
  for (int64_t d : *shape) {
    if (d != 0 && count > (int64_t(1) << 40) / d)
      return npyError("array is too large");
    count *= d;
  }
  StringRef data = bytes.drop_front(headerStart + headerLength);
  size_t expected = static_cast<size_t>(count) * getDTypeSize(*dtype);
  if (data.size() != expected)
    return npyError("data has " + llvm::Twine(data.size()) +
                    " bytes but the header describes " + llvm::Twine(expected));
  llvm::Expected<HostTensor> created = HostTensor::create(*dtype, *shape);
  if (!created)
    return created.takeError();
  HostTensor tensor = std::move(*created);
  if (expected)
    std::memcpy(tensor.getData(), data.data(), expected);
  if (*dtype == DType::I1) {
    // Normalise bools to 0/1 so that compiled code sees valid i1 values.
    auto *p = static_cast<unsigned char *>(tensor.getData());
    for (int64_t i = 0; i < count; ++i)
      p[i] = p[i] != 0;
  }
  return tensor;
}

llvm::Expected<HostTensor> kiln::readNpy(StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!file)
    return npyError("cannot read '" + path + "': " + file.getError().message());
  llvm::Expected<HostTensor> tensor = parseNpy((*file)->getBuffer());
  if (!tensor)
    return npyError("'" + path + "': " + llvm::toString(tensor.takeError()));
  return tensor;
}

std::string kiln::serializeNpy(const HostTensor &tensor) {
  if (tensor.getDType() == DType::BF16) {
    HostTensor wide(DType::F32, tensor.getShape().vec());
    for (int64_t i = 0; i < tensor.getNumElements(); ++i)
      wide.setFromDouble(i, tensor.getAsDouble(i));
    return serializeNpy(wide);
  }
  StringRef descr;
  switch (tensor.getDType()) {
  case DType::F32:
    descr = "<f4";
    break;
  case DType::F64:
    descr = "<f8";
    break;
  case DType::F16:
    descr = "<f2";
    break;
  case DType::I1:
    descr = "|b1";
    break;
  case DType::I32:
    descr = "<i4";
    break;
  case DType::I64:
    descr = "<i8";
    break;
  case DType::BF16:
    break;
  }
  std::string shape = "(";
  for (int64_t d : tensor.getShape())
    shape += std::to_string(d) + ", ";
  if (tensor.getRank() > 1)
    shape.erase(shape.size() - 2);
  else if (tensor.getRank() == 1)
    shape.pop_back(); // "(5,)"
  shape += ")";
  std::string header = "{'descr': '" + descr.str() +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Magic (6) + version (2) + length (2) + header + '\n', padded to 64.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(static_cast<const char *>(tensor.getData()), tensor.getByteSize());
  return out;
}

llvm::Error kiln::writeNpy(StringRef path, const HostTensor &tensor) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return npyError("cannot write '" + path + "': " + ec.message());
  os << serializeNpy(tensor);
  os.close();
  if (os.has_error())
    return npyError("cannot write '" + path + "': " + os.error().message());
  return llvm::Error::success();
}
