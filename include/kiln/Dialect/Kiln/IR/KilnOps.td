//===- KilnOps.td - kiln dialect ops -------------------------*- tablegen -*-===//
//
// Every op of the contract in docs/Dialect.md. Names, operands and attribute names
// are binding; programs use the generic form.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNOPS_TD
#define KILN_DIALECT_KILN_IR_KILNOPS_TD

include "kiln/Dialect/Kiln/IR/KilnBase.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"

//===----------------------------------------------------------------------===//
// Constant
//===----------------------------------------------------------------------===//

def Kiln_ConstantOp : Kiln_Op<"constant",
    [ConstantLike, Pure, InferTypeOpAdaptor]> {
  let summary = "tensor constant";
  let description = [{
    A constant tensor. The attribute's type is the result type.

    ```mlir
    %c = kiln.constant dense<1.0> : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

// The scalar semantics (ScalarSemanticsOpInterface) of an elementwise op:
// `scalar`, a C++ expression in the double `x` (and `y`), the one definition
// that the constant folder and the reference interpreter evaluate.
class Kiln_ScalarSemantics<string scalar, int arity> {
  code scalarDefinition = [{
    double $cppClass::evaluateScalar(::llvm::ArrayRef<double> operands) {
      double x = operands[0];}] # !if(!eq(arity, 2), [{
      double y = operands[1];}], "") # [{
      return }] # scalar # [{;
    }
  }];
}

// `formula` documents the op; `scalar` is its semantics in C++ (above).
class Kiln_UnaryMathOp<string mnemonic, string formula, string scalar,
                       string rules = "", Type tensor = Kiln_FloatTensor,
                       list<Trait> traits = []>
    : Kiln_UnaryOp<mnemonic, traits, tensor>, Kiln_ScalarSemantics<scalar, 1> {
  let extraClassDefinition = scalarDefinition;
  let summary = "elementwise " # formula;
  let description = [{
    Computes `}] # formula # [{` for every element of a }] #
    !if(!eq(tensor, Kiln_NumericTensor),
        "float or integer tensor (integers wrap around, two's complement)",
        "float tensor") # [{.}] #
    !if(!empty(rules), "", " " # rules) # [{

    ```mlir
    %y = kiln.}] # mnemonic # [{ %x : tensor<4x8xf32>
    ```
  }];
}

def Kiln_NegOp : Kiln_UnaryMathOp<"neg", "-x", "-x", "", Kiln_NumericTensor> {
  let hasFolder = 1; // neg(neg(x)) = x
}
def Kiln_ExpOp : Kiln_UnaryMathOp<"exp", "exp(x)", "std::exp(x)",
    "", Kiln_FloatTensor, [Kiln_Transcendental]>;
def Kiln_LogOp : Kiln_UnaryMathOp<"log", "log(x)", "std::log(x)",
    "", Kiln_FloatTensor, [Kiln_Transcendental]>;
def Kiln_TanhOp : Kiln_UnaryMathOp<"tanh", "tanh(x)", "std::tanh(x)",
    "", Kiln_FloatTensor, [Kiln_Transcendental]>;
def Kiln_SigmoidOp : Kiln_UnaryMathOp<"sigmoid", "1 / (1 + exp(-x))",
    "1.0 / (1.0 + std::exp(-x))", "", Kiln_FloatTensor, [Kiln_Transcendental]>;
def Kiln_ReluOp : Kiln_UnaryMathOp<"relu", "max(x, 0)",
    // NaN propagates, and -0 becomes +0, as max(x, +0) does.
    "std::isnan(x) ? x : (std::signbit(x) ? 0.0 : x)",
    "NaN stays NaN and -0 becomes +0. Its derivative is 1 where x > 0 and "
    "0 elsewhere: 0 at the tie x = 0, as PyTorch's threshold_backward."> {
  let hasFolder = 1; // relu(relu(x)) = relu(x)
}
def Kiln_SqrtOp : Kiln_UnaryMathOp<"sqrt", "sqrt(x)", "std::sqrt(x)">;
def Kiln_RsqrtOp : Kiln_UnaryMathOp<"rsqrt", "1 / sqrt(x)", "1.0 / std::sqrt(x)">;
def Kiln_AbsOp : Kiln_UnaryMathOp<"abs", "|x|", "std::fabs(x)",
    "Its derivative is sign(x), with sign(0) = 0: 0 at the tie x = 0.",
    Kiln_NumericTensor> {
  let hasFolder = 1; // abs(abs(x)) = abs(x)
}
def Kiln_SinOp : Kiln_UnaryMathOp<"sin", "sin(x)", "std::sin(x)",
    "", Kiln_FloatTensor, [Kiln_Transcendental]>;
def Kiln_CosOp : Kiln_UnaryMathOp<"cos", "cos(x)", "std::cos(x)",
    "", Kiln_FloatTensor, [Kiln_Transcendental]>;
def Kiln_ReciprocalOp : Kiln_UnaryMathOp<"reciprocal", "1 / x", "1.0 / x"> {
  let hasFolder = 1; // reciprocal(reciprocal(x)) = x
}
def Kiln_ErfOp : Kiln_UnaryMathOp<"erf", "erf(x)", "std::erf(x)",
    "The Gauss error function, 2/sqrt(pi) times the integral of exp(-t^2) "
    "from 0 to x.", Kiln_FloatTensor, [Kiln_Transcendental]>;

def Kiln_GeluOp : Kiln_UnaryOp<"gelu", [Kiln_Transcendental]> {
  let summary = "elementwise Gaussian error linear unit";
  let description = [{
    The GELU activation, `x * Phi(x)` with `Phi` the standard normal CDF,
    for every element of a float tensor. With `approximate = false` (the
    default) it is the exact erf form, `0.5 * x * (1 + erf(x / sqrt(2)))`;
    with `approximate = true` it is the tanh form,
    `0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))`, as
    PyTorch's `gelu(x, approximate="tanh")`.

    ```mlir
    %y = kiln.gelu %x : tensor<4x8xf32>
    %z = kiln.gelu %x {approximate = true} : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$operand,
                       DefaultValuedAttr<BoolAttr, "false">:$approximate);
  let extraClassDeclaration = [{
    /// sqrt(2 / pi) and the cubic coefficient of the tanh form.
    static constexpr double kTanhScale = 0.7978845608028654;
    static constexpr double kCubicCoefficient = 0.044715;
  }];
  let extraClassDefinition = [{
    double $cppClass::evaluateScalar(::llvm::ArrayRef<double> operands) {
      double x = operands[0];
      if (getApproximate())
        return 0.5 * x *
               (1.0 + std::tanh(kTanhScale * (x + kCubicCoefficient * x * x * x)));
      return 0.5 * x * (1.0 + std::erf(x * M_SQRT1_2));
    }
  }];
}

//===----------------------------------------------------------------------===//
// Elementwise binary ops
//===----------------------------------------------------------------------===//

class Kiln_BinaryMathOp<string mnemonic, string formula, string scalar,
                        list<Trait> traits = [], string rules = "",
                        Type tensor = Kiln_FloatTensor>
    : Kiln_BinaryOp<mnemonic, traits, tensor>,
      Kiln_ScalarSemantics<scalar, 2> {
  let extraClassDefinition = scalarDefinition;
  let summary = "elementwise " # formula;
  let description = [{
    Computes `}] # formula # [{` elementwise. Both operands and the result
    have the same type; there is no implicit broadcasting (use
    `kiln.broadcast_in_dim` first).}] #
    !if(!eq(tensor, Kiln_NumericTensor),
        " Integer tensors (i32, i64) are accepted; they wrap around (two's "
        # "complement).", "") # !if(!empty(rules), "", " " # rules) # [{

    ```mlir
    %z = kiln.}] # mnemonic # [{ %x, %y : tensor<4x8xf32>
    ```
  }];
}

def Kiln_AddOp : Kiln_BinaryMathOp<"add", "x + y", "x + y", [Commutative], "",
                                  Kiln_NumericTensor> {
  // Sums of reductions become reductions of sums (KilnCanonicalize.cpp).
  let hasCanonicalizer = 1;
}
def Kiln_SubOp : Kiln_BinaryMathOp<"sub", "x - y", "x - y", [], "",
                                  Kiln_NumericTensor>;
def Kiln_MulOp : Kiln_BinaryMathOp<"mul", "x * y", "x * y", [Commutative], "",
                                  Kiln_NumericTensor>;
def Kiln_DivOp : Kiln_BinaryMathOp<"div", "x / y", "x / y">;
def Kiln_MaxOp : Kiln_BinaryMathOp<"max", "max(x, y)",
    "::kiln::maximumOf(x, y)", [Commutative],
    "NaN propagates: the result is NaN where either operand is NaN (IEEE "
    "754-2019 maximum). The derivative goes to the larger operand; where "
    "x == y it is split evenly, half to each, and a NaN operand gets none.",
    Kiln_NumericTensor>;
def Kiln_MinOp : Kiln_BinaryMathOp<"min", "min(x, y)",
    "::kiln::minimumOf(x, y)", [Commutative],
    "NaN propagates: the result is NaN where either operand is NaN (IEEE "
    "754-2019 minimum). The derivative goes to the smaller operand; where "
    "x == y it is split evenly, half to each, and a NaN operand gets none.",
    Kiln_NumericTensor>;
def Kiln_PowOp : Kiln_BinaryMathOp<"pow", "x ^ y", "std::pow(x, y)",
    [Kiln_Transcendental],
    "The derivative in y, x^y * log(x), is taken as 0 where x <= 0.">;

//===----------------------------------------------------------------------===//
// Compare, select, convert
//===----------------------------------------------------------------------===//

def Kiln_CmpOp : Kiln_Op<"cmp", !listconcat(Kiln_ElementwiseTraits,
    [InferTypeOpAdaptorWithIsCompatible,
     Kiln_SameElementTypeAs<"lhs", "rhs">])> {
  let summary = "elementwise comparison";
  let description = [{
    Compares two float or integer (i32, i64; signed) tensors elementwise and
    returns an `i1` tensor of the same shape. The predicate is one of `eq`, `ne`, `lt`, `le`, `gt`, `ge`,
    written bare in the custom form and `#kiln<predicate lt>` in the generic
    form. Comparisons are ordered (false when either side is NaN), except
    `ne`, which is true when either side is NaN.

    ```mlir
    %m = kiln.cmp lt, %a, %b : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Kiln_CmpPredicateAttr:$predicate,
                       Kiln_NumericTensor:$lhs, Kiln_NumericTensor:$rhs);
  let results = (outs Kiln_BoolTensor:$result);
  let assemblyFormat = "$predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs)";
}

def Kiln_SelectOp : Kiln_Op<"select", !listconcat(Kiln_ElementwiseTraits,
    [Kiln_SameElementTypeAs<"result", "on_true">,
     Kiln_SameElementTypeAs<"result", "on_false">,
     // Builders infer the result's type from on_true's.
     Kiln_SameElementTypeAs<"on_true", "result">])> {
  let summary = "elementwise select";
  let description = [{
    `pred ? on_true : on_false`, elementwise. `pred` is an `i1` tensor of the
    result's shape.

    ```mlir
    %r = kiln.select %m, %a, %b : tensor<4x8xi1>, tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Kiln_BoolTensor:$pred, Kiln_Tensor:$on_true,
                       Kiln_Tensor:$on_false);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $pred `,` $on_true `,` $on_false attr-dict `:` type($pred) `,`
    type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_ConvertOp : Kiln_Op<"convert", Kiln_ElementwiseTraits> {
  let summary = "element type conversion";
  let description = [{
    Converts every element to the result's element type; the shape does not
    change. Floats round to nearest even; `i1` converts to 0.0 / 1.0 (and
    0 / 1), and a number converts to `i1` as `x != 0`. A float converts to
    an integer (i32, i64) toward zero, saturating at the type's range, NaN
    giving 0; an integer converts to a float to nearest even, and to a
    narrower integer by keeping its low bits (two's complement).

    ```mlir
    %h = kiln.convert %x : tensor<4x8xf32> -> tensor<4x8xbf16>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$operand);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Shape and layout ops
//===----------------------------------------------------------------------===//

def Kiln_BroadcastInDimOp : Kiln_ShapeOp<"broadcast_in_dim"> {
  let summary = "broadcast into a larger shape";
  let description = [{
    Operand dim `i` maps to result dim `dims[i]`; `dims` is strictly
    increasing. The operand's size there is 1 or equal to the result's size
    (a dynamic operand dim is never broadcast: it equals its result dim).
    The other result dims are new.

    `sizes` gives the result's dynamic dims, one `index` each, in order
    (e.g. from `tensor.dim`); there are none when the result is static.

    ```mlir
    %b = kiln.broadcast_in_dim %bias, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
    %n = tensor.dim %x, %c0 : tensor<?x8xf32>
    %d = kiln.broadcast_in_dim %bias sizes(%n), dims = [1] : tensor<8xf32> -> tensor<?x8xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$operand, Variadic<Index>:$sizes,
                       DenseI64ArrayAttr:$dims);
  let assemblyFormat = [{
    $operand (`sizes` `(` $sizes^ `)`)? `,` `dims` `=` $dims attr-dict `:`
    type($operand) `->` type($result)
  }];
  let builders = [
    // A broadcast to a static `result` type (no sizes).
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$operand,
                   "::llvm::ArrayRef<int64_t>":$dims), [{
      build($_builder, $_state, result, operand, ::mlir::ValueRange(), dims);
    }]>,
  ];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// The result's size along `dim`: a constant, or the `sizes` operand
    /// that gives it.
    ::mlir::OpFoldResult getResultSize(::mlir::OpBuilder &b, int64_t dim);
  }];
}

def Kiln_ReshapeOp : Kiln_ShapeOp<"reshape"> {
  let summary = "row-major reshape";
  let description = [{
    Reinterprets the elements, in row-major order, with a new shape of the
    same element count.

    ```mlir
    %r = kiln.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$operand);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_TransposeOp : Kiln_ShapeOp<"transpose",
    [InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "dimension permutation";
  let description = [{
    `result.shape[i] = operand.shape[perm[i]]`.

    ```mlir
    %t = kiln.transpose %x, perm = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$operand, DenseI64ArrayAttr:$perm);
  let assemblyFormat = [{
    $operand `,` `perm` `=` $perm attr-dict `:` type($operand) `->`
    type($result)
  }];
  let hasFolder = 1;
}

def Kiln_SliceOp : Kiln_ShapeOp<"slice", [InferTypeOpAdaptor]> {
  let summary = "unit-stride sub-tensor";
  let description = [{
    The sub-tensor that starts at `offsets` and has shape `sizes` (PyTorch
    `narrow` and `chunk`). A size of -1 takes its dim whole (its offset must
    be 0); it is how a dynamic dim is kept.

    ```mlir
    %i = kiln.slice %g, offsets = [0, 8], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
    %j = kiln.slice %g, offsets = [0, 8], sizes = [-1, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$operand, DenseI64ArrayAttr:$offsets,
                       DenseI64ArrayAttr:$sizes);
  let assemblyFormat = [{
    $operand `,` `offsets` `=` $offsets `,` `sizes` `=` $sizes attr-dict `:`
    type($operand) `->` type($result)
  }];
  let extraClassDeclaration = [{
    /// `sizes` with each -1 replaced by its dim's size: the result's shape
    /// (ShapedType::kDynamic for a dynamic dim kept whole).
    ::llvm::ArrayRef<int64_t> getResolvedSizes() {
      return getType().getShape();
    }
  }];
  let hasFolder = 1;
}

def Kiln_ConcatOp : Kiln_ShapeOp<"concat",
    [InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "concatenation along one dim";
  let description = [{
    Joins one or more tensors along `dim`. They may differ in size along
    `dim` only.

    ```mlir
    %k = kiln.concat %x, %y dim = 1 : tensor<4x8xf32>, tensor<4x3xf32> -> tensor<4x11xf32>
    ```
  }];
  let arguments = (ins Variadic<Kiln_Tensor>:$inputs, I64Attr:$dim);
  let assemblyFormat = [{
    $inputs `dim` `=` $dim attr-dict `:` type($inputs) `->` type($result)
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Reductions and contractions
//===----------------------------------------------------------------------===//

def Kiln_ReduceSumOp : Kiln_ReduceOp<"reduce_sum"> {
  let summary = "sum over dims";
  let description = [{
    Sums over `dims` (sorted, unique); those dims are removed.

    ```mlir
    %r = kiln.reduce_sum %x, dims = [0] : tensor<4x8xf32> -> tensor<8xf32>
    ```
  }];
}

def Kiln_ReduceMaxOp : Kiln_ReduceOp<"reduce_max"> {
  let summary = "maximum over dims";
  let description = [{
    The maximum over `dims` (sorted, unique); those dims are removed. NaN
    propagates; the maximum of an empty range is -inf.

    ```mlir
    %r = kiln.reduce_max %x, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
    ```
  }];
}

def Kiln_MatmulOp : Kiln_Op<"matmul", [Pure,
    InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "matrix product, optionally batched";
  let description = [{
    `[M,K] x [K,N] -> [M,N]`, or batched `[B,M,K] x [B,K,N] -> [B,M,N]`,
    after transposing the last two dims of an operand whose flag is set.

    f16 and bf16 products accumulate in f32 and round once. An f32 product
    may carry `precision`, PyTorch's `torch.set_float32_matmul_precision`
    for this one product (`#kiln<precision high>` in the generic form):
    `highest` computes in f32; `high` lets it round the operands to TF32
    and `medium` to bf16 (kiln's choice: PyTorch uses TF32 there on CUDA),
    with f32 sums, on tensor cores. These permit a lower precision; a target
    without a faster path (the CPU) computes in f32. Without the attribute,
    the pipelines' `matmul-precision` option decides
    (`-kiln-set-matmul-precision`).

    ```mlir
    %m = kiln.matmul %x, %w {transpose_b = true} : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
    %t = kiln.matmul %x, %v {precision = #kiln<precision high>} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$lhs, Kiln_FloatTensor:$rhs,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_a,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_b,
                       OptionalAttr<Kiln_MatmulPrecisionAttr>:$precision);
  let results = (outs Kiln_FloatTensor:$result);
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The precision this product asks for: `highest` without the
    /// attribute.
    ::kiln::MatmulPrecision getEffectivePrecision() {
      return getPrecision().value_or(::kiln::MatmulPrecision::highest);
    }
  }];
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Indices, gathers and random numbers
//===----------------------------------------------------------------------===//

def Kiln_IotaOp : Kiln_Op<"iota", [Pure]> {
  let summary = "the index along one dim";
  let description = [{
    The element at index `i` is `i[dim]`, in the result's element type (an
    integer or a float). `sizes` gives the result's dynamic dims, one
    `index` each, in order; there are none when the result is static.
    ```mlir
    %p = kiln.iota dim = 1 : tensor<4x16xi64>
    %q = kiln.iota sizes(%n) dim = 0 : tensor<?x8xf32>
    ```
  }];
  let arguments = (ins Variadic<Index>:$sizes, I64Attr:$dim);
  let results = (outs Kiln_NumericTensor:$result);
  let assemblyFormat = [{
    (`sizes` `(` $sizes^ `)`)? `dim` `=` $dim attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def Kiln_TakeOp : Kiln_Op<"take", [Pure]> {
  let summary = "gathers slices along one dim by index (numpy.take)";
  let description = [{
    `numpy.take(operand, indices, axis=dim)`: an embedding lookup, or
    PyTorch's `index_select` with indices of any rank. The result's shape
    is `operand.shape[:dim] + indices.shape + operand.shape[dim+1:]` and
    `result[a, j, b] = operand[a, indices[j], b]`. An index outside
    `[0, operand.shape[dim])` gives NaN in a float result and 0 (false) in
    an integer one: the op never reads outside its operand.
    ```mlir
    %e = kiln.take %wte, %ids dim = 0 : tensor<65x32xf32>, tensor<4x16xi64> -> tensor<4x16x32xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$operand, Kiln_IntTensor:$indices,
                       I64Attr:$dim);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` $indices `dim` `=` $dim attr-dict `:` type($operand) `,`
    type($indices) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Kiln_ScatterAddOp : Kiln_Op<"scatter_add", [Pure,
    AllTypesMatch<["operand", "result"]>]> {
  let summary = "adds slices at indexed positions along one dim";
  let description = [{
    The transpose of `kiln.take`: a copy of `operand` with each slice of
    `updates` added at the position its index names along `dim`.
    `updates.shape = operand.shape[:dim] + indices.shape +
    operand.shape[dim+1:]`. Repeated indices accumulate; an update whose
    index is outside `[0, operand.shape[dim])` is dropped. Deterministic:
    the updates of one position are added in the row-major order of their
    indices, so a program gives the same bits on every run.
    ```mlir
    %d = kiln.scatter_add %z, %ids, %ct dim = 0 : tensor<65x32xf32>, tensor<4x16xi64>, tensor<4x16x32xf32> -> tensor<65x32xf32>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$operand, Kiln_IntTensor:$indices,
                       Kiln_NumericTensor:$updates, I64Attr:$dim);
  let results = (outs Kiln_NumericTensor:$result);
  let assemblyFormat = [{
    $operand `,` $indices `,` $updates `dim` `=` $dim attr-dict `:`
    type($operand) `,` type($indices) `,` type($updates) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Kiln_ArgmaxOp : Kiln_Op<"argmax", [Pure]> {
  let summary = "the index of the maximum along one dim";
  let description = [{
    The index of the first maximal element along `dim`, which is removed
    from the shape, as an `i32` or `i64`. A NaN counts as the maximum (the
    first NaN wins), as in PyTorch. An empty dim gives 0.
    ```mlir
    %a = kiln.argmax %logits dim = 1 : tensor<4x65xf32> -> tensor<4xi64>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$operand, I64Attr:$dim);
  let results = (outs Kiln_IntTensor:$result);
  let assemblyFormat = [{
    $operand `dim` `=` $dim attr-dict `:` type($operand) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Kiln_RngUniformOp : Kiln_Op<"rng_uniform", [Pure]> {
  let summary = "counter-based uniform random numbers in [0, 1)";
  let description = [{
    `key` is a `tensor<2xi64>` holding (seed, offset). The 32-bit word for
    flat index `n` (row-major) is word `n mod 4` of Philox4x32-10 (Salmon et
    al., 2011) with key `(seed mod 2^32, seed >> 32)` and counter
    `(c mod 2^32, c >> 32, 0, 0)`, `c = offset + n div 4`; the value is
    `(word >> 8) * 2^-24`. A function of `key` alone: the same bits on every
    backend and run, and a new seed or offset is data, never a new program.
    ```mlir
    %u = kiln.rng_uniform %key : tensor<2xi64> -> tensor<4x16xf32>
    ```
  }];
  let arguments = (ins Kiln_IntTensor:$key);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = [{
    $key attr-dict `:` type($key) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Collectives (docs/Distributed.md)
//===----------------------------------------------------------------------===//

def Kiln_AllReduceOp : Kiln_CollectiveOp<"all_reduce",
    [AllTypesMatch<["operand", "result"]>]> {
  let summary = "combines a tensor across the ranks of a group";
  let description = [{
    Every rank of communicator `group` passes a tensor of one type; each gets
    their elementwise `reduction` (sum, mean or max) back. Every rank runs
    the same collectives in the same order.

    ```mlir
    %g = kiln.all_reduce mean, %x group = 0 : tensor<64x16xf32>
    ```
  }];
  let arguments = (ins Kiln_ReductionAttr:$reduction, Kiln_FloatTensor:$operand,
                       DefaultValuedAttr<I64Attr, "0">:$group);
  let assemblyFormat = [{
    $reduction `,` $operand `group` `=` $group attr-dict `:` type($result)
  }];
  let builders = [
    OpBuilder<(ins "::kiln::CollectiveReduction":$reduction, "::mlir::Value":$operand,
                   CArg<"int64_t", "0">:$group), [{
      build($_builder, $_state, operand.getType(), reduction, operand, group);
    }]>
  ];
}

def Kiln_AllGatherOp : Kiln_CollectiveOp<"all_gather"> {
  let summary = "concatenates the ranks' tensors along a dim";
  let description = [{
    Every rank of `group` passes a tensor of one type; each gets the
    concatenation of all of them along `dim`, in rank order. The result is
    the operand's size at `dim` times the number of ranks, which the run
    checks.

    ```mlir
    %w = kiln.all_gather %shard dim = 0 group = 0 : tensor<8x16xf32> -> tensor<16x16xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$operand, I64Attr:$dim,
                       DefaultValuedAttr<I64Attr, "0">:$group);
  let assemblyFormat = [{
    $operand `dim` `=` $dim `group` `=` $group attr-dict `:` type($operand)
    `->` type($result)
  }];
}

def Kiln_ReduceScatterOp : Kiln_CollectiveOp<"reduce_scatter"> {
  let summary = "combines the ranks' tensors and keeps one part of the result";
  let description = [{
    The `reduction` of the ranks' tensors, as `kiln.all_reduce`, split into
    as many equal parts along `dim` as `group` has ranks: rank r keeps the
    r-th part.

    ```mlir
    %s = kiln.reduce_scatter sum, %g dim = 0 group = 0 : tensor<16x16xf32> -> tensor<8x16xf32>
    ```
  }];
  let arguments = (ins Kiln_ReductionAttr:$reduction, Kiln_FloatTensor:$operand,
                       I64Attr:$dim, DefaultValuedAttr<I64Attr, "0">:$group);
  let assemblyFormat = [{
    $reduction `,` $operand `dim` `=` $dim `group` `=` $group attr-dict `:`
    type($operand) `->` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Differentiation and fusion
//===----------------------------------------------------------------------===//
// Attention (formed by -kiln-fuse-attention)
//===----------------------------------------------------------------------===//

class Kiln_AttentionBase<string mnemonic> : Kiln_Op<mnemonic, [Pure]> {
  code scoreDescription = [{
    The scores are `s = q·kᵀ` over each batch `n`, rewritten elementwise by
    `score_steps`: triples `[kind, a, b]` applied in order, where `a` and `b`
    index `score_operands` (rank 3, each dim 1 or the scores' `[N, Tq, Tk]`,
    read broadcast) and `x` is the operand `a`:
    `0` mul (`s·x`), `1` div (`s / x`), `2` add (`s + x`), `3` sub (`s − x`),
    `4` sub from (`x − s`), `5` keep (`a ? s : b`), `6` fill (`a ? b : s`),
    `7` neg (`−s`). Masks (`a` of keep and fill) are i1; the rest f32.
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// [N, Tq, Tk]: the shape of the scores.
    llvm::SmallVector<int64_t, 3> getScoreShape();
  }];
}

def Kiln_AttentionOp : Kiln_AttentionBase<"attention"> {
  let summary = "softmax(f(q·kᵀ))·v, row by row, without the scores";
  let description = !strconcat([{
    `result[n] = softmax(f(q[n]·k[n]ᵀ), last dim)·v[n]` for q `[N, Tq, D]`,
    k `[N, Tk, D]` and v `[N, Tk, Dv]` (f32). Also the softmax's row
    statistics, both `[N, Tq]`: `row_max`, the largest rewritten score of
    each row, and `row_sum`, the sum of `exp(score − row_max)` over it.
    A target may compute it blockwise with an online softmax, never storing
    the `[N, Tq, Tk]` scores; its derivative is `kiln.attention_grad`.
  }], scoreDescription, [{

    ```mlir
    %o, %m, %l = kiln.attention %q, %k, %v score(%scale, %mask : tensor<1x1x1xf32>, tensor<1x16x16xi1>) steps [0, 0, -1, 5, 1, 2] : tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<4x16x8xf32> -> tensor<4x16x8xf32>, tensor<4x16xf32>, tensor<4x16xf32>
    ```
  }]);
  let arguments = (ins Kiln_FloatTensor:$query, Kiln_FloatTensor:$key,
                       Kiln_FloatTensor:$value,
                       Variadic<Kiln_Tensor>:$score_operands,
                       DenseI64ArrayAttr:$score_steps);
  let results = (outs Kiln_FloatTensor:$result, Kiln_FloatTensor:$row_max,
                      Kiln_FloatTensor:$row_sum);
  let assemblyFormat = [{
    $query `,` $key `,` $value
    (`score` `(` $score_operands^ `:` type($score_operands) `)`)?
    `steps` $score_steps attr-dict `:` type($query) `,` type($key) `,`
    type($value) `->` type($result) `,` type($row_max) `,` type($row_sum)
  }];
}

def Kiln_AttentionGradOp : Kiln_AttentionBase<"attention_grad"> {
  let summary = "the gradients of kiln.attention's q, k and v";
  let description = !strconcat([{
    Given an attention's operands, its `result`, `row_max` and `row_sum`, and
    the gradient of its result, the gradients of q, k and v. A target may
    recompute the scores blockwise from the row statistics, never storing
    them. The scores are those of the attention:
  }], scoreDescription, [{

    ```mlir
    %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %o, %m, %l, %do steps [] : tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16x8xf32> -> tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<4x16x8xf32>
    ```
  }]);
  let arguments = (ins Kiln_FloatTensor:$query, Kiln_FloatTensor:$key,
                       Kiln_FloatTensor:$value, Kiln_FloatTensor:$result,
                       Kiln_FloatTensor:$row_max, Kiln_FloatTensor:$row_sum,
                       Kiln_FloatTensor:$result_grad,
                       Variadic<Kiln_Tensor>:$score_operands,
                       DenseI64ArrayAttr:$score_steps);
  let results = (outs Kiln_FloatTensor:$query_grad,
                      Kiln_FloatTensor:$key_grad,
                      Kiln_FloatTensor:$value_grad);
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $result `,` $row_max `,` $row_sum `,`
    $result_grad
    (`score` `(` $score_operands^ `:` type($score_operands) `)`)?
    `steps` $score_steps attr-dict `:` type($query) `,` type($key) `,`
    type($value) `,` type($result) `,` type($row_max) `,` type($row_sum) `,`
    type($result_grad) `->` type($query_grad) `,` type($key_grad) `,`
    type($value_grad)
  }];
}

//===----------------------------------------------------------------------===//

def Kiln_VjpOp : Kiln_Op<"vjp", [Pure,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "vector-Jacobian product of a function";
  let description = [{
    The reverse-mode derivative of `callee` at `args`, contracted with one
    cotangent per callee result. The operands are the callee's arguments
    followed by the cotangents; there is one result per index in `wrt`
    (sorted, unique), typed like that argument. `-kiln-autodiff` expands it.

    ```mlir
    %g = kiln.vjp @f(%x, %w, %ct) wrt [0] : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, DenseI64ArrayAttr:$wrt,
                       Variadic<Kiln_Tensor>:$operands);
  let results = (outs Variadic<Kiln_FloatTensor>:$grads);
  let assemblyFormat = [{
    $callee `(` $operands `)` `wrt` $wrt attr-dict `:`
    functional-type($operands, results)
  }];
}

def Kiln_FusionGroupOp : Kiln_Op<"fusion_group", [
    IsolatedFromAbove, SingleBlock, RecursiveMemoryEffects,
    RecursivelySpeculatable]> {
  let summary = "a group of ops compiled as one kernel";
  let description = [{
    The body reads the group's inputs through its block arguments (one per
    input, same types) and ends in `kiln.yield` of the group's outputs.
    `-kiln-fuse` forms these; each becomes one compiled kernel.

    ```mlir
    %r = kiln.fusion_group %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
      %s = kiln.add %x, %y : tensor<4xf32>
      kiln.yield %s : tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<Kiln_Tensor>:$inputs);
  let results = (outs Variadic<Kiln_Tensor>:$outputs);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $inputs attr-dict `:` functional-type($inputs, $outputs) $body
  }];
  let hasVerifier = 1;
}

def Kiln_YieldOp : Kiln_Op<"yield", [Pure, Terminator, ReturnLike,
    HasParent<"FusionGroupOp">]> {
  let summary = "terminator of kiln.fusion_group";
  let description = [{
    Yields the group's outputs.

    ```mlir
    kiln.yield %a, %b : tensor<4xf32>, tensor<4xf32>
    ```
  }];
  let arguments = (ins Variadic<Kiln_Tensor>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

#endif // KILN_DIALECT_KILN_IR_KILNOPS_TD
