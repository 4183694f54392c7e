//===- GenericShapes.cpp - trace programs that differ only in sizes -------===//

#include "Compiler/Frontend/GenericShapes.h"
#include "Support/ByteStream.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <map>

using namespace kiln;

namespace {

/// Whether slice `node` takes dim `d` of its operand whole.
bool takesWhole(const TraceNode &node, const TraceNode &operand, size_t d) {
  llvm::ArrayRef<int64_t> attrs = node.getAttrs();
  size_t rank = attrs.size() / 2;
  return d < rank && attrs[d] == 0 && attrs[rank + d] == operand.getShape()[d];
}

/// Calls `visit(node, isParameter)` for each entry of `program` and,
/// after a Vjp's entry, of its callee: the walk GenericPattern follows.
template <typename Visit>
void walk(const TraceProgram &program, Visit &&visit) {
  for (auto [i, entry] : llvm::enumerate(program.entries)) {
    visit(*entry.node, entry.isParameter);
    if (entry.node->getOp() == TraceOp::Vjp && !entry.isParameter)
      if (const TraceProgram *callee =
              program.getCallee(static_cast<int32_t>(i)))
        walk(*callee, visit);
  }
}

} // namespace

void kiln::appendProgramText(const TraceProgram &program, llvm::raw_ostream &os,
                             bool withSizes) {
  for (auto [index, entry] : llvm::enumerate(program.entries)) {
    const TraceNode &node = *entry.node;
    // A parameter is a buffer of the program: what computed it (its op,
    // attributes, scalar) is not part of the program.
    if (entry.isParameter) {
      os << "p " << static_cast<int>(node.getDType());
      if (withSizes) {
        os << " [";
        for (int64_t dim : node.getShape())
          os << dim << ",";
        os << "];";
      } else {
        os << " r" << node.getShape().size() << ";";
      }
      continue;
    }
    uint64_t scalar;
    double value = node.getScalar();
    std::memcpy(&scalar, &value, sizeof(scalar));
    os << static_cast<int>(node.getOp()) << " "
       << static_cast<int>(node.getDType());
    llvm::ArrayRef<int64_t> attrs = node.getAttrs();
    if (withSizes) {
      os << " [";
      for (int64_t dim : node.getShape())
        os << dim << ",";
      os << "] {";
      for (int64_t attr : attrs)
        os << attr << ",";
    } else if (node.getOp() == TraceOp::Slice) {
      // Offsets, then sizes: a size that takes its dim whole is "whole",
      // whatever that dim's size.
      os << " r" << node.getShape().size() << " {";
      const TraceNode &operand = *program.entries[entry.operands[0]].node;
      size_t rank = attrs.size() / 2;
      for (size_t d = 0; d < rank; ++d)
        os << attrs[d] << ",";
      for (size_t d = 0; d < rank; ++d) {
        if (takesWhole(node, operand, d))
          os << "whole,";
        else
          os << attrs[rank + d] << ",";
      }
    } else {
      os << " r" << node.getShape().size() << " {";
      for (int64_t attr : attrs)
        os << attr << ",";
      // Whether each mapped dim expands (size 1 to another size) is the
      // program's, not its sizes': the two compute different things (and
      // differentiate differently).
      if (node.getOp() == TraceOp::BroadcastInDim && !entry.operands.empty()) {
        llvm::ArrayRef<int64_t> from =
            program.entries[entry.operands[0]].node->getShape();
        os << "x";
        for (auto [k, d] : llvm::enumerate(attrs))
          os << (k < from.size() && d >= 0 &&
                         static_cast<size_t>(d) < node.getShape().size() &&
                         from[k] == 1 && node.getShape()[d] != 1
                     ? "1"
                     : "0");
      }
    }
    os << "} " << scalar << " (";
    for (int32_t operand : entry.operands)
      os << operand << ",";
    os << ")";
    // A checkpointed node: which operands share its segment (the segments'
    // shape; their numbers differ from step to step).
    if (uint64_t segment = node.getCheckpointSegment()) {
      os << " ckpt(";
      for (int32_t operand : entry.operands) {
        const TraceProgram::Entry &input = program.entries[operand];
        os << (!input.isParameter &&
                       input.node->getCheckpointSegment() == segment
                   ? "1"
                   : "0");
      }
      os << ")";
    }
    if (node.getCallee()) {
      os << " callee{";
      appendProgramText(*node.getCallee(), os, withSizes);
      os << "}";
    } else if (node.isLazyVjp()) {
      // Settled when extracted: what it calls. Else its operands are its
      // forward's outputs, which the program holds.
      const VjpCall *call = program.getSettledCall(static_cast<int32_t>(index));
      os << (call ? " settled" : " lazy");
      if (call) {
        os << " callee{";
        appendProgramText(*call->callee, os, withSizes);
        os << "} wrt(";
        for (int64_t position : call->wrt)
          os << position << ",";
        os << ") of(";
        for (int64_t result : call->resultOf)
          os << result << ",";
        os << ")";
      }
    }
    os << ";";
  }
  os << " params";
  for (int32_t p : program.parameters)
    os << " " << p;
  os << " outputs";
  for (int32_t o : program.outputs)
    os << " " << o;
}

std::string kiln::getStructuralForm(const TraceProgram &program) {
  std::string text;
  llvm::raw_string_ostream os(text);
  appendProgramText(program, os, /*withSizes=*/false);
  return text;
}

ShapeRecord kiln::recordShapes(const TraceProgram &program) {
  ShapeRecord record;
  walk(program, [&](const TraceNode &node, bool isParameter) {
    record.nodes.push_back(
        {llvm::SmallVector<int64_t, 4>(node.getShape()), isParameter});
  });
  return record;
}

namespace {
/// A node of the program a pattern is derived for, with the sizes that
/// stand for the other program's.
struct Compared {
  const TraceNode *node;
  llvm::SmallVector<int64_t, 4> other;
  bool isParameter;
};

/// The pattern in which `nodes` take `first`'s sizes and their `other`
/// sizes: a dim whose two sizes differ is dynamic, its symbol the pair,
/// which a parameter's dim must have.
std::optional<std::pair<GenericPattern, DynamicDims>>
buildPattern(const ShapeRecord &first, llvm::ArrayRef<Compared> nodes) {
  const auto &a = first.nodes;
  if (a.size() != nodes.size())
    return std::nullopt;
  std::map<std::pair<int64_t, int64_t>, int32_t> symbols;
  for (size_t i = 0; i < a.size(); ++i) {
    llvm::ArrayRef<int64_t> sa = a[i].first, sb = nodes[i].other;
    if (sa.size() != sb.size() || a[i].second != nodes[i].isParameter)
      return std::nullopt;
    if (!a[i].second)
      continue;
    for (size_t d = 0; d < sa.size(); ++d)
      if (sa[d] != sb[d])
        symbols.emplace(std::make_pair(sa[d], sb[d]),
                        static_cast<int32_t>(symbols.size()));
  }
  if (symbols.empty())
    return std::nullopt;
  GenericPattern pattern;
  pattern.numSymbols = static_cast<int32_t>(symbols.size());
  DynamicDims dynamic;
  for (size_t i = 0; i < a.size(); ++i) {
    llvm::ArrayRef<int64_t> sa = a[i].first, sb = nodes[i].other;
    std::vector<GenericPattern::Dim> dims;
    llvm::SmallVector<int32_t, 4> marks;
    bool any = false;
    for (size_t d = 0; d < sa.size(); ++d) {
      if (sa[d] == sb[d]) {
        dims.push_back({-1, sa[d]});
        marks.push_back(-1);
        continue;
      }
      auto it = symbols.find({sa[d], sb[d]});
      if (it == symbols.end())
        return std::nullopt; // no parameter dim says this size
      dims.push_back({it->second, 0});
      marks.push_back(it->second);
      any = true;
    }
    pattern.nodes.push_back(std::move(dims));
    if (any)
      dynamic[nodes[i].node] = std::move(marks);
  }
  return std::make_pair(std::move(pattern), std::move(dynamic));
}
} // namespace

std::optional<std::pair<GenericPattern, DynamicDims>>
kiln::derivePattern(const ShapeRecord &first, const TraceProgram &second) {
  std::vector<Compared> nodes;
  walk(second, [&](const TraceNode &node, bool isParameter) {
    nodes.push_back(
        {&node, llvm::SmallVector<int64_t, 4>(node.getShape()), isParameter});
  });
  return buildPattern(first, nodes);
}

std::optional<std::pair<GenericPattern, DynamicDims>>
kiln::derivePatternFromMarks(const TraceProgram &program) {
  // The sizes of the marked dims; each stands for any size, written as a
  // size no tensor has (negative) in the "other" program.
  llvm::SmallDenseSet<int64_t, 4> marked;
  walk(program, [&](const TraceNode &node, bool isParameter) {
    uint64_t marks = node.getDynamicMarks();
    for (size_t d = 0; isParameter && d < node.getShape().size(); ++d)
      if (d < 64 && (marks >> d & 1))
        marked.insert(node.getShape()[d]);
  });
  if (marked.empty())
    return std::nullopt;
  std::vector<Compared> nodes;
  walk(program, [&](const TraceNode &node, bool isParameter) {
    llvm::SmallVector<int64_t, 4> other(node.getShape());
    uint64_t marks = node.getDynamicMarks();
    for (size_t d = 0; d < other.size(); ++d) {
      // A parameter's dim is dynamic where it is marked; a computed
      // node's wherever it has a marked size (a later size that does not
      // follow makes the program not fit: it compiles for itself).
      bool dynamicDim =
          isParameter ? d < 64 && (marks >> d & 1) : marked.contains(other[d]);
      if (dynamicDim)
        other[d] = -1 - other[d];
    }
    nodes.push_back({&node, std::move(other), isParameter});
  });
  return buildPattern(recordShapes(program), nodes);
}

bool kiln::fitsPattern(const GenericPattern &pattern,
                       const TraceProgram &program) {
  std::vector<int64_t> sizes(pattern.numSymbols, -1);
  size_t index = 0;
  bool fits = true;
  walk(program, [&](const TraceNode &node, bool) {
    if (!fits)
      return;
    if (index >= pattern.nodes.size()) {
      fits = false;
      return;
    }
    const std::vector<GenericPattern::Dim> &dims = pattern.nodes[index++];
    llvm::ArrayRef<int64_t> shape = node.getShape();
    if (shape.size() != dims.size()) {
      fits = false;
      return;
    }
    for (size_t d = 0; d < dims.size() && fits; ++d) {
      if (dims[d].symbol < 0) {
        fits = shape[d] == dims[d].size;
        continue;
      }
      int64_t &size = sizes[dims[d].symbol];
      if (size < 0)
        size = shape[d];
      fits = size == shape[d];
    }
  });
  return fits && index == pattern.nodes.size();
}

std::string kiln::serializePattern(const GenericPattern &pattern) {
  std::string out;
  ByteWriter w(out);
  w.write<int32_t>(pattern.numSymbols);
  w.write<uint32_t>(static_cast<uint32_t>(pattern.nodes.size()));
  for (const std::vector<GenericPattern::Dim> &dims : pattern.nodes) {
    w.write<uint32_t>(static_cast<uint32_t>(dims.size()));
    for (const GenericPattern::Dim &dim : dims) {
      w.write<int32_t>(dim.symbol);
      w.write<int64_t>(dim.size);
    }
  }
  return out;
}

std::optional<GenericPattern> kiln::parsePattern(llvm::StringRef bytes) {
  ByteReader r(llvm::ArrayRef<char>(bytes.data(), bytes.size()));
  GenericPattern pattern;
  uint32_t count;
  if (!r.read(pattern.numSymbols) || pattern.numSymbols < 0 ||
      !r.readCount(count, uint64_t(1) << 24))
    return std::nullopt;
  pattern.nodes.resize(count);
  for (std::vector<GenericPattern::Dim> &dims : pattern.nodes) {
    uint32_t rank;
    if (!r.readCount(rank, 64))
      return std::nullopt;
    dims.resize(rank);
    for (GenericPattern::Dim &dim : dims)
      if (!r.read(dim.symbol) || !r.read(dim.size) ||
          dim.symbol >= pattern.numSymbols || dim.symbol < -1 ||
          (dim.symbol < 0 && dim.size < 0))
        return std::nullopt;
  }
  if (r.remaining() != 0)
    return std::nullopt;
  return pattern;
}
