//===- Trace.cpp - the recorded program of lazy tensors --------------------===//

#include "kiln/Lazy/Trace.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"

#include <atomic>
#include <cstring>

using namespace kiln;
using llvm::ArrayRef;

llvm::StringRef kiln::getTraceOpName(TraceOp op) {
  switch (op) {
  case TraceOp::Parameter: return "parameter";
  case TraceOp::Constant: return "kiln.constant";
  case TraceOp::Neg: return "kiln.neg";
  case TraceOp::Exp: return "kiln.exp";
  case TraceOp::Log: return "kiln.log";
  case TraceOp::Tanh: return "kiln.tanh";
  case TraceOp::Sigmoid: return "kiln.sigmoid";
  case TraceOp::Relu: return "kiln.relu";
  case TraceOp::Sqrt: return "kiln.sqrt";
  case TraceOp::Rsqrt: return "kiln.rsqrt";
  case TraceOp::Abs: return "kiln.abs";
  case TraceOp::Sin: return "kiln.sin";
  case TraceOp::Cos: return "kiln.cos";
  case TraceOp::Reciprocal: return "kiln.reciprocal";
  case TraceOp::Add: return "kiln.add";
  case TraceOp::Sub: return "kiln.sub";
  case TraceOp::Mul: return "kiln.mul";
  case TraceOp::Div: return "kiln.div";
  case TraceOp::Max: return "kiln.max";
  case TraceOp::Min: return "kiln.min";
  case TraceOp::Pow: return "kiln.pow";
  case TraceOp::Cmp: return "kiln.cmp";
  case TraceOp::Select: return "kiln.select";
  case TraceOp::Convert: return "kiln.convert";
  case TraceOp::BroadcastInDim: return "kiln.broadcast_in_dim";
  case TraceOp::Reshape: return "kiln.reshape";
  case TraceOp::Transpose: return "kiln.transpose";
  case TraceOp::Slice: return "kiln.slice";
  case TraceOp::Concat: return "kiln.concat";
  case TraceOp::ReduceSum: return "kiln.reduce_sum";
  case TraceOp::ReduceMax: return "kiln.reduce_max";
  case TraceOp::MatMul: return "kiln.matmul";
  }
  return "unknown";
}

static std::atomic<int64_t> numTracedNodes{0};

int64_t kiln::getNumTracedNodes() {
  return numTracedNodes.load(std::memory_order_relaxed);
}

static std::string typeString(const NodeRef &node) {
  return getTensorTypeString(node->getDType(), node->getShape());
}


static llvm::Error opError(TraceOp op, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 getTraceOpName(op) + ": " + message);
}

static bool isFloat(DType dtype) { return dtype != DType::I1; }

static bool isUnaryElementwise(TraceOp op) {
  return op >= TraceOp::Neg && op <= TraceOp::Reciprocal;
}

static bool isBinaryElementwise(TraceOp op) {
  return op >= TraceOp::Add && op <= TraceOp::Pow;
}

static bool hasNegativeDim(ArrayRef<int64_t> shape) {
  return llvm::any_of(shape, [](int64_t d) { return d < 0; });
}

TraceNode::TraceNode(TraceOp op, DType dtype, ArrayRef<int64_t> shape,
                     ArrayRef<NodeRef> operands, ArrayRef<int64_t> attrs,
                     double scalar)
    : op(op), dtype(dtype), shape(shape.begin(), shape.end()),
      operands(operands.begin(), operands.end()),
      attrs(attrs.begin(), attrs.end()), scalar(scalar) {
  uint64_t scalarBits = 0;
  if (op == TraceOp::Constant)
    std::memcpy(&scalarBits, &scalar, sizeof(scalarBits));
  llvm::hash_code h = llvm::hash_combine(
      static_cast<uint8_t>(op), static_cast<uint8_t>(dtype),
      llvm::hash_combine_range(shape.begin(), shape.end()),
      llvm::hash_combine_range(attrs.begin(), attrs.end()), scalarBits);
  for (const NodeRef &operand : operands)
    h = llvm::hash_combine(h, operand->getHash());
  hash = static_cast<uint64_t>(h);
}

TraceNode::~TraceNode() {
  // The operands go to a per-thread list that the outermost destructor
  // drains; a node destroyed while draining only adds its own.
  thread_local std::vector<NodeRef> pending;
  thread_local bool draining = false;
  for (NodeRef &operand : operands)
    pending.push_back(std::move(operand));
  if (draining)
    return;
  draining = true;
  while (!pending.empty()) {
    NodeRef last = std::move(pending.back());
    pending.pop_back();
    last.reset();
  }
  draining = false;
}

NodeRef TraceNode::make(TraceOp op, DType dtype, ArrayRef<int64_t> shape,
                        ArrayRef<NodeRef> operands, ArrayRef<int64_t> attrs,
                        double scalar) {
  numTracedNodes.fetch_add(1, std::memory_order_relaxed);
  return NodeRef(new TraceNode(op, dtype, shape, operands, attrs, scalar));
}

int64_t TraceNode::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

NodeRef TraceNode::parameter(DType dtype, ArrayRef<int64_t> shape) {
  return make(TraceOp::Parameter, dtype, shape, {});
}

NodeRef TraceNode::parameter(std::shared_ptr<const HostTensor> data) {
  NodeRef node = make(TraceOp::Parameter, data->getDType(), data->getShape(),
                      {});
  node->data = std::move(data);
  return node;
}

std::shared_ptr<const HostTensor> TraceNode::getData() const {
  std::lock_guard<std::mutex> lock(dataMutex);
  return data;
}

llvm::Error TraceNode::setData(std::shared_ptr<const HostTensor> value) const {
  if (!value || value->getDType() != dtype || value->getShape() != getShape())
    return opError(op, "a value of type " +
                           (value ? getTensorTypeString(value->getDType(),
                                               value->getShape())
                                  : std::string("(none)")) +
                           " cannot be the result " +
                           getTensorTypeString(dtype, getShape()));
  llvm::SmallVector<NodeRef, 2> released;
  {
    std::lock_guard<std::mutex> lock(dataMutex);
    data = std::move(value);
    released = std::move(operands);
    operands.clear();
  }
  // Released outside the lock (the destructor walks long chains).
  return llvm::Error::success();
}

bool TraceNode::isLeafOrGetOperands(
    llvm::SmallVectorImpl<NodeRef> &result) const {
  if (op == TraceOp::Parameter)
    return true;
  std::lock_guard<std::mutex> lock(dataMutex);
  if (data)
    return true;
  result.append(operands.begin(), operands.end());
  return false;
}

llvm::Expected<NodeRef> TraceNode::constant(DType dtype,
                                            ArrayRef<int64_t> shape,
                                            double value) {
  if (hasNegativeDim(shape))
    return opError(TraceOp::Constant,
                   "negative dim in shape " + getListString(shape));
  return make(TraceOp::Constant, dtype, shape, {}, {},
              roundToDType(value, dtype));
}

llvm::Expected<NodeRef> TraceNode::elementwise(TraceOp op,
                                               ArrayRef<NodeRef> operands) {
  size_t arity = isUnaryElementwise(op) ? 1 : isBinaryElementwise(op) ? 2 : 0;
  if (arity == 0)
    return opError(op, "not a float elementwise op");
  if (operands.size() != arity)
    return opError(op, "takes " + llvm::Twine(arity) + " operands, got " +
                           llvm::Twine(operands.size()));
  const NodeRef &first = operands.front();
  if (!isFloat(first->getDType()))
    return opError(op, "needs float operands, got " + typeString(first));
  if (arity == 2 && (operands[1]->getDType() != first->getDType() ||
                     operands[1]->getShape() != first->getShape()))
    return opError(op, "operand types differ: " + typeString(first) +
                           " and " + typeString(operands[1]));
  return make(op, first->getDType(), first->getShape(), operands);
}

llvm::Expected<NodeRef> TraceNode::cmp(TracePredicate predicate, NodeRef lhs,
                                       NodeRef rhs) {
  if (lhs->getDType() != rhs->getDType() || lhs->getShape() != rhs->getShape())
    return opError(TraceOp::Cmp, "operand types differ: " + typeString(lhs) +
                                     " and " + typeString(rhs));
  return make(TraceOp::Cmp, DType::I1, lhs->getShape(), {lhs, rhs},
              {static_cast<int64_t>(predicate)});
}

llvm::Expected<NodeRef> TraceNode::select(NodeRef pred, NodeRef onTrue,
                                          NodeRef onFalse) {
  if (pred->getDType() != DType::I1)
    return opError(TraceOp::Select,
                   "the predicate must be i1, got " + typeString(pred));
  if (onTrue->getDType() != onFalse->getDType() ||
      onTrue->getShape() != onFalse->getShape() ||
      pred->getShape() != onTrue->getShape())
    return opError(TraceOp::Select, "operand shapes differ: " +
                                        typeString(pred) + ", " +
                                        typeString(onTrue) + " and " +
                                        typeString(onFalse));
  return make(TraceOp::Select, onTrue->getDType(), onTrue->getShape(),
              {pred, onTrue, onFalse});
}

llvm::Expected<NodeRef> TraceNode::convert(NodeRef operand, DType dtype) {
  return make(TraceOp::Convert, dtype, operand->getShape(), {operand});
}

llvm::Expected<NodeRef> TraceNode::broadcastInDim(NodeRef operand,
                                                  ArrayRef<int64_t> shape,
                                                  ArrayRef<int64_t> dims) {
  auto fail = [&](const llvm::Twine &why) {
    return opError(TraceOp::BroadcastInDim,
                   typeString(operand) + " to " +
                       getTensorTypeString(operand->getDType(), shape) + " with dims " +
                       getListString(dims) + ": " + why);
  };
  if (hasNegativeDim(shape))
    return fail("negative result dim");
  if (dims.size() != operand->getShape().size())
    return fail("one dim per operand dim is needed");
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (d < 0 || d >= static_cast<int64_t>(shape.size()) ||
        (i > 0 && d <= dims[i - 1]))
      return fail("dims must be increasing and within the result's rank");
    int64_t size = operand->getShape()[i];
    if (size != 1 && size != shape[d])
      return fail("operand dim " + llvm::Twine(i) + " (size " +
                  llvm::Twine(size) + ") is neither 1 nor result dim " +
                  llvm::Twine(d) + " (size " + llvm::Twine(shape[d]) + ")");
  }
  return make(TraceOp::BroadcastInDim, operand->getDType(), shape, {operand},
              dims);
}

llvm::Expected<NodeRef> TraceNode::reshape(NodeRef operand,
                                           ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t d : shape)
    count *= d;
  if (hasNegativeDim(shape) || count != operand->getNumElements())
    return opError(TraceOp::Reshape,
                   typeString(operand) + " has " +
                       llvm::Twine(operand->getNumElements()) +
                       " elements, which shape " + getListString(shape) +
                       " does not hold");
  return make(TraceOp::Reshape, operand->getDType(), shape, {operand});
}

llvm::Expected<NodeRef> TraceNode::transpose(NodeRef operand,
                                             ArrayRef<int64_t> perm) {
  ArrayRef<int64_t> in = operand->getShape();
  auto notPermutation = [&] {
    return opError(TraceOp::Transpose,
                   getListString(perm) + " is not a permutation of the dims of " +
                       typeString(operand));
  };
  if (perm.size() != in.size())
    return notPermutation();
  llvm::SmallVector<bool, 4> seen(in.size(), false);
  llvm::SmallVector<int64_t, 4> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(in.size()) || seen[p])
      return notPermutation();
    seen[p] = true;
    shape.push_back(in[p]);
  }
  return make(TraceOp::Transpose, operand->getDType(), shape, {operand}, perm);
}

llvm::Expected<NodeRef> TraceNode::slice(NodeRef operand,
                                         ArrayRef<int64_t> offsets,
                                         ArrayRef<int64_t> sizes) {
  ArrayRef<int64_t> in = operand->getShape();
  auto fail = [&] {
    return opError(TraceOp::Slice, "offsets " + getListString(offsets) +
                                       " and sizes " + getListString(sizes) +
                                       " do not fit in " + typeString(operand));
  };
  if (offsets.size() != in.size() || sizes.size() != in.size())
    return fail();
  for (size_t d = 0; d < in.size(); ++d)
    if (offsets[d] < 0 || sizes[d] < 0 || offsets[d] + sizes[d] > in[d])
      return fail();
  llvm::SmallVector<int64_t, 8> attrs(offsets.begin(), offsets.end());
  attrs.append(sizes.begin(), sizes.end());
  return make(TraceOp::Slice, operand->getDType(), sizes, {operand}, attrs);
}

llvm::Expected<NodeRef> TraceNode::concat(ArrayRef<NodeRef> parts,
                                          int64_t dim) {
  if (parts.empty())
    return opError(TraceOp::Concat, "needs at least one operand");
  const NodeRef &first = parts.front();
  int64_t rank = first->getShape().size();
  if (dim < 0 || dim >= rank)
    return opError(TraceOp::Concat, "dim " + llvm::Twine(dim) +
                                        " is not a dim of " +
                                        typeString(first));
  llvm::SmallVector<int64_t, 4> shape(first->getShape());
  shape[dim] = 0;
  for (const NodeRef &part : parts) {
    bool fits = part->getDType() == first->getDType() &&
                static_cast<int64_t>(part->getShape().size()) == rank;
    for (int64_t d = 0; fits && d < rank; ++d)
      fits = d == dim || part->getShape()[d] == first->getShape()[d];
    if (!fits)
      return opError(TraceOp::Concat,
                     typeString(part) + " does not match " + typeString(first) +
                         " except along dim " + llvm::Twine(dim));
    shape[dim] += part->getShape()[dim];
  }
  return make(TraceOp::Concat, first->getDType(), shape, parts, {dim});
}

llvm::Expected<NodeRef> TraceNode::reduce(TraceOp op, NodeRef operand,
                                          ArrayRef<int64_t> dims) {
  if (op != TraceOp::ReduceSum && op != TraceOp::ReduceMax)
    return opError(op, "not a reduction");
  if (!isFloat(operand->getDType()))
    return opError(op, "needs a float operand, got " + typeString(operand));
  int64_t rank = operand->getShape().size();
  for (auto [i, d] : llvm::enumerate(dims))
    if (d < 0 || d >= rank || (i > 0 && d <= dims[i - 1]))
      return opError(op, "dims " + getListString(dims) +
                             " must be sorted, unique dims of " +
                             typeString(operand));
  llvm::SmallVector<int64_t, 4> shape;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(dims, d))
      shape.push_back(operand->getShape()[d]);
  return make(op, operand->getDType(), shape, {operand}, dims);
}

llvm::Expected<NodeRef> TraceNode::matmul(NodeRef lhs, NodeRef rhs,
                                          bool transposeA, bool transposeB) {
  ArrayRef<int64_t> a = lhs->getShape(), b = rhs->getShape();
  auto fail = [&](const llvm::Twine &why) {
    return opError(TraceOp::MatMul, typeString(lhs) + (transposeA ? "^T" : "") +
                                        " x " + typeString(rhs) +
                                        (transposeB ? "^T" : "") + ": " + why);
  };
  if (lhs->getDType() != rhs->getDType() || !isFloat(lhs->getDType()))
    return fail("operands need one float element type");
  if (a.size() != b.size() || (a.size() != 2 && a.size() != 3))
    return fail("operands must both be 2-D, or both 3-D (batched)");
  size_t r = a.size();
  if (r == 3 && a[0] != b[0])
    return fail("batch sizes differ");
  int64_t m = transposeA ? a[r - 1] : a[r - 2];
  int64_t k = transposeA ? a[r - 2] : a[r - 1];
  int64_t kb = transposeB ? b[r - 1] : b[r - 2];
  int64_t n = transposeB ? b[r - 2] : b[r - 1];
  if (k != kb)
    return fail("contracted sizes " + llvm::Twine(k) + " and " +
                llvm::Twine(kb) + " differ");
  llvm::SmallVector<int64_t, 3> shape;
  if (r == 3)
    shape.push_back(a[0]);
  shape.push_back(m);
  shape.push_back(n);
  return make(TraceOp::MatMul, lhs->getDType(), shape, {lhs, rhs},
              {transposeA ? 1 : 0, transposeB ? 1 : 0});
}

TraceProgram TraceProgram::extract(ArrayRef<NodeRef> outputs) {
  TraceProgram program;
  llvm::DenseMap<const TraceNode *, int32_t> index;
  // Iterative post-order: a node is entered once all its operands are.
  // Nodes with a value are parameters: their operands are not needed.
  struct Frame {
    NodeRef node;
    bool leaf;
    llvm::SmallVector<NodeRef, 2> operands;
    size_t nextOperand = 0;
  };
  std::vector<Frame> stack;
  auto push = [&](const NodeRef &node) {
    Frame frame{node, false, {}};
    frame.leaf = node->isLeafOrGetOperands(frame.operands);
    stack.push_back(std::move(frame));
  };
  auto visit = [&](const NodeRef &root) {
    if (index.count(root.get()))
      return;
    push(root);
    while (!stack.empty()) {
      Frame &frame = stack.back();
      if (frame.nextOperand < frame.operands.size()) {
        NodeRef operand = frame.operands[frame.nextOperand++];
        if (!index.count(operand.get()))
          push(operand);
        continue;
      }
      Frame done = std::move(stack.back());
      stack.pop_back();
      if (index.count(done.node.get()))
        continue;
      Entry entry{done.node, done.leaf, {}};
      for (const NodeRef &operand : done.operands)
        entry.operands.push_back(index.lookup(operand.get()));
      int32_t id = static_cast<int32_t>(program.entries.size());
      index[done.node.get()] = id;
      if (entry.isParameter)
        program.parameters.push_back(id);
      program.entries.push_back(std::move(entry));
    }
  };
  for (const NodeRef &output : outputs) {
    visit(output);
    program.outputs.push_back(index.lookup(output.get()));
  }

  // The program's hash: each entry as op, attributes, type and operand
  // positions (so that x + x and x + y differ), then the outputs.
  llvm::hash_code h = llvm::hash_value(program.entries.size());
  for (const Entry &entry : program.entries) {
    const TraceNode *node = entry.node.get();
    // A parameter is its type only, whatever computed its value.
    TraceOp op = entry.isParameter ? TraceOp::Parameter : node->getOp();
    ArrayRef<int64_t> attrs =
        entry.isParameter ? ArrayRef<int64_t>() : node->getAttrs();
    uint64_t scalarBits = 0;
    if (op == TraceOp::Constant) {
      double scalar = node->getScalar();
      std::memcpy(&scalarBits, &scalar, sizeof(scalarBits));
    }
    llvm::hash_code entryHash = llvm::hash_combine(
        static_cast<uint8_t>(op), static_cast<uint8_t>(node->getDType()),
        llvm::hash_combine_range(node->getShape().begin(),
                                 node->getShape().end()),
        llvm::hash_combine_range(attrs.begin(), attrs.end()), scalarBits,
        llvm::hash_combine_range(entry.operands.begin(),
                                 entry.operands.end()));
    program.entryHashes.push_back(static_cast<uint64_t>(entryHash));
    h = llvm::hash_combine(h, entryHash);
  }
  h = llvm::hash_combine(h, llvm::hash_combine_range(program.outputs.begin(),
                                                     program.outputs.end()));
  program.hash = static_cast<uint64_t>(h);
  return program;
}

std::string TraceProgram::describe(int32_t index) const {
  const Entry &entry = entries[index];
  std::string s = entry.isParameter
                      ? std::string("parameter")
                      : getTraceOpName(entry.node->getOp()).str();
  if (!entry.isParameter && !entry.node->getAttrs().empty())
    s += " " + getListString(entry.node->getAttrs());
  if (!entry.operands.empty()) {
    s += "(";
    for (auto [i, operand] : llvm::enumerate(entry.operands))
      s += (i ? ", %" : "%") + std::to_string(operand);
    s += ")";
  }
  return s + " : " + getTensorTypeString(entry.node->getDType(),
                                entry.node->getShape());
}
