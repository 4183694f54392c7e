//===- KilnBase.td - kiln dialect, types and op base classes -*- tablegen -*-===//
//
// The dialect definition, the tensor type constraints of the contract
// (docs/Dialect.md) and the layered op base classes that the ops in KilnOps.td
// derive from, so that traits and assembly formats are written once.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNBASE_TD
#define KILN_DIALECT_KILN_IR_KILNBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "kiln/Dialect/Kiln/IR/KilnInterfaces.td"

def Kiln_Dialect : Dialect {
  let name = "kiln";
  let cppNamespace = "::kiln";
  let summary = "Tensor-level dialect of the kiln lazy-tensor compiler";
  let description = [{
    The `kiln` dialect holds the programs that kiln records from lazy tensor
    code: elementwise math, layout ops, reductions, matmul, the `kiln.vjp`
    request for reverse-mode derivatives and the `kiln.fusion_group` regions
    that become one kernel each.

    This page is kiln's contract: the op names, operands, attribute names
    and kinds, and semantics below are binding, as are the names of the
    passes, pipelines and tools at its end. The custom assembly formats,
    C++ classes, traits and folders are kiln's own; programs may always use
    the generic form, as in these examples (each parses, verifies and
    prints in the custom form: `test/Dialect/Kiln/generic.mlir`):

    ```mlir
    %c = "kiln.constant"() <{value = dense<1.0> : tensor<4x8xf32>}> : () -> tensor<4x8xf32>
    %s = "kiln.add"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %b = "kiln.broadcast_in_dim"(%bias) <{dims = array<i64: 1>}> : (tensor<8xf32>) -> tensor<4x8xf32>
    %b = "kiln.broadcast_in_dim"(%bias, %n) <{dims = array<i64: 1>}> : (tensor<8xf32>, index) -> tensor<?x8xf32>
    %i = "kiln.slice"(%g) <{offsets = array<i64: 0, 8>, sizes = array<i64: 4, 8>}> : (tensor<4x32xf32>) -> tensor<4x8xf32>
    %k = "kiln.concat"(%x, %y) <{dim = 1 : i64}> : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<4x11xf32>
    %r = "kiln.reduce_sum"(%x) <{dims = array<i64: 0>}> : (tensor<4x8xf32>) -> tensor<8xf32>
    %m = "kiln.matmul"(%x, %w) <{transpose_b = true}> : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    %t = "kiln.matmul"(%x, %v) <{precision = #kiln<precision high>}> : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    %g = "kiln.vjp"(%x, %w, %ct) <{callee = @f, wrt = array<i64: 0>}> : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %e = "kiln.take"(%wte, %ids) <{dim = 0 : i64}> : (tensor<65x32xf32>, tensor<4x16xi64>) -> tensor<4x16x32xf32>
    %d = "kiln.scatter_add"(%z, %ids, %ct) <{dim = 0 : i64}> : (tensor<65x32xf32>, tensor<4x16xi64>, tensor<4x16x32xf32>) -> tensor<65x32xf32>
    %p = "kiln.iota"() <{dim = 1 : i64}> : () -> tensor<4x16xi64>
    %a = "kiln.argmax"(%logits) <{dim = 1 : i64}> : (tensor<4x65xf32>) -> tensor<4xi64>
    %u = "kiln.rng_uniform"(%key) : (tensor<2xi64>) -> tensor<4x16xf32>
    %o:3 = "kiln.attention"(%q, %k, %v, %scale) <{score_steps = array<i64: 0, 0, -1>}> : (tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<1x1x1xf32>) -> (tensor<4x16x8xf32>, tensor<4x16xf32>, tensor<4x16xf32>)
    ```

    ## Types

    - Ranked builtin tensors. Element types: `f32` (everywhere), `f64` (CPU
      and GPU; used by gradient checks), `f16` and `bf16` (storage types;
      computed in f32, products accumulated in f32), `i1` (results of
      `kiln.cmp`), `i32` and `i64` (signed integers: token ids, labels,
      indices). An f32 `kiln.matmul` may let its operands be rounded to
      TF32 or bf16 on tensor cores (`precision`, PyTorch's
      `torch.set_float32_matmul_precision`).
    - Integer tensors are accepted by `kiln.constant`, `kiln.neg`,
      `kiln.abs`, `kiln.add`, `kiln.sub`, `kiln.mul`, `kiln.max`, `kiln.min`
      (two's-complement wrap-around), `kiln.cmp`, `kiln.select`,
      `kiln.convert` (float to integer rounds toward zero and saturates at
      the type's range; NaN gives 0), the shape ops, `kiln.concat`,
      `kiln.reduce_sum`, `kiln.reduce_max`, and as the indexing ops below
      say. Other ops refuse them in the verifier.
    - Gradients flow through float values only: `kiln.vjp`'s `wrt` names
      float arguments; a callee's integer results take a cotangent of their
      own type, which is ignored.
    - Verifiers accept dynamic dims (`?`) wherever an op's semantics allow
      them. `kiln.constant` is always static; a constant of dynamic shape is
      a rank-0 or static constant broadcast by `kiln.broadcast_in_dim`, whose
      `sizes` operands give the dynamic dims. Programs may read a size with
      upstream `tensor.dim`.
    - No implicit broadcasting: binary ops take operands of identical type;
      frontends insert `kiln.broadcast_in_dim`.

    Every op is side-effect free (`Pure`) unless it says otherwise.
    Attribute kinds: `i64` is an `IntegerAttr` of i64, `array<i64>` a
    `DenseI64ArrayAttr`, `bool` a `BoolAttr`; kiln's enums are written
    `#kiln<predicate lt>`, `#kiln<reduction mean>` and
    `#kiln<precision high>` (`highest`, `high`, `medium`).

    ## Passes and pipelines

    | name | what it does |
    | --- | --- |
    | `-kiln-autodiff` | expands every `kiln.vjp` (innermost first) into kiln ops, keeping only the derivative work on a path from an output to a `wrt` argument (option `prune`, default true) |
    | `-kiln-set-matmul-precision` | gives every f32 `kiln.matmul` without a `precision` the pass's (option `precision`: `highest`, `high`, `medium`); the pipelines run it after `-kiln-autodiff` for their `matmul-precision` option |
    | `-kiln-autocast` | runs each f32 `kiln.matmul` in `dtype` (option: `bf16`, the default, or `f16`) between `kiln.convert`s, as `torch.autocast`; the pipelines run it after `-kiln-autodiff` for their `autocast` option |
    | `-kiln-fuse-attention` | forms `kiln.attention` where scores `q·kᵀ`, rewritten elementwise (scales, additive and select masks), feed a softmax along the last dim whose values feed only a product with v; the pipelines run it before `-kiln-autodiff`, whose rule for it is `kiln.attention_grad` |
    | `-kiln-decompose-attention` | writes `kiln.attention` and `kiln.attention_grad` as the matmuls, rewrites and softmax that compute them |
    | `-kiln-fuse` | forms `kiln.fusion_group`s; afterwards every elementwise, broadcast, slice, concat and reduction op is in exactly one group, so groups are kernels |
    | `-kiln-export-fusion-graph=FILE` | writes the fusion graph as JSON (nodes, edges, groups) for the viewer |
    | `-kiln-lower-to-linalg` | kiln ops and fusion groups to linalg, tensor, arith and math; a group becomes one kernel; a concat exit writes its producers into slices of one destination |
    | `-kiln-cpu-pipeline` | kiln to the LLVM dialect for the host |
    | `-kiln-gpu-pipeline` | kiln to host LLVM and a `gpu.binary` holding PTX (option `chip`, default sm_80) |

    Upstream `-canonicalize` and `-cse` run the kiln-level clean-ups, through
    the ops' folders and canonicalization patterns. The options are in
    [TransformPasses.md](TransformPasses.md),
    [ConversionPasses.md](ConversionPasses.md) and the codegen pages.

    ## Tools

    - `kiln-opt`: `mlir-opt` with kiln and what it lowers to;
      `-mlir-pass-statistics` shows each kiln pass's statistics.
    - `kiln-run FILE.mlir [--entry NAME] [--backend cpu|cuda]
      [--input X.npy]... [--random-inputs SEED] [--output-dir DIR] [--print]
      [--repeat N] [--report] [--matmul-precision highest|high|medium]
      [--autocast bf16|f16]`: compiles the entry (default `main`, or the
      only public function) with the full pipeline and runs it; outputs go
      to `DIR/out0.npy`, ...; `--report` prints one JSON line with at least
      `compile_ms`, `run_ms`, `fusion_groups`, `unique_kernels`,
      `kernel_launches` and `backend`. Bad input exits non-zero with one
      clear line on stderr.
    - `kiln-compile FILE.mlir [--entry NAME] [--backend cpu|cuda]
      [--chip sm_XX] -o M.kiln`: compiles ahead of time into one module that
      the runtime runs without MLIR or LLVM; `kiln-run M.kiln` runs it.

    See [Tools.md](Tools.md) for every option.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
  private:
    /// Registers the ops (KilnOps.cpp, where they are defined).
    void registerOps();

  public:
  }];
  // The attributes that pipeline stages leave for later ones, each named
  // once here (KilnDialect::<Name>AttrHelper::getNameStr() is "kiln.<name>"):
  // - kernel: a func.func outlined as a kernel (-kiln-outline-kernels);
  // - kernel_args: its memref argument types, before the LLVM dialect
  //   erases them (-kiln-compact-kernel-abi, the JIT);
  // - kernel_id: the linalg ops of one fusion group's kernel
  //   (-kiln-lower-to-linalg, -kiln-outline-kernels);
  // - fusion_groups, kernel_launches, unique_kernels: counts on the module
  //   for the compile statistics (-kiln-fuse, -kiln-outline-kernels).
  let discardableAttrs = (ins
    "::mlir::UnitAttr":$kernel,
    "::mlir::ArrayAttr":$kernel_args,
    "::mlir::IntegerAttr":$kernel_id,
    "::mlir::IntegerAttr":$fusion_groups,
    "::mlir::IntegerAttr":$kernel_launches,
    "::mlir::IntegerAttr":$unique_kernels
  );
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

// f16 and bf16 are storage types: lowerings compute them in f32.
def Kiln_FloatElement : AnyTypeOf<[F32, F64, F16, BF16]>;
def Kiln_FloatTensor : RankedTensorOf<[F32, F64, F16, BF16]>;
def Kiln_BoolTensor : RankedTensorOf<[I1]>;
// Signed integers (two's complement): token ids, labels, indices.
def Kiln_IntTensor : RankedTensorOf<[I32, I64]>;
// What the integer-capable ops accept: floats and i32/i64.
def Kiln_NumericTensor : RankedTensorOf<[F32, F64, F16, BF16, I32, I64]>;
def Kiln_Tensor : RankedTensorOf<[F32, F64, F16, BF16, I1, I32, I64]>;

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

def Kiln_CmpPredicate : I32EnumAttr<"CmpPredicate", "kiln.cmp predicate", [
  I32EnumAttrCase<"eq", 0>,
  I32EnumAttrCase<"ne", 1>,
  I32EnumAttrCase<"lt", 2>,
  I32EnumAttrCase<"le", 3>,
  I32EnumAttrCase<"gt", 4>,
  I32EnumAttrCase<"ge", 5>
]> {
  let cppNamespace = "::kiln";
  let genSpecializedAttr = 0;
}

// Written `#kiln<predicate lt>` in the generic form and `lt` in kiln.cmp's
// custom form.
def Kiln_CmpPredicateAttr
    : EnumAttr<Kiln_Dialect, Kiln_CmpPredicate, "predicate">;

// How a collective combines the ranks' tensors. Written `#kiln<reduction
// mean>` in the generic form and `mean` in the collectives' custom forms.
def Kiln_Reduction : I32EnumAttr<"CollectiveReduction", "collective reduction", [
  I32EnumAttrCase<"sum", 0>,
  I32EnumAttrCase<"mean", 1>,
  I32EnumAttrCase<"max", 2>
]> {
  let cppNamespace = "::kiln";
  let genSpecializedAttr = 0;
}

def Kiln_ReductionAttr : EnumAttr<Kiln_Dialect, Kiln_Reduction, "reduction">;

// What an f32 kiln.matmul may compute in: PyTorch's
// torch.set_float32_matmul_precision. Written `#kiln<precision high>`.
def Kiln_MatmulPrecision : I32EnumAttr<"MatmulPrecision",
    "precision of an f32 matrix product", [
  I32EnumAttrCase<"highest", 0>,
  I32EnumAttrCase<"high", 1>,
  I32EnumAttrCase<"medium", 2>
]> {
  let cppNamespace = "::kiln";
  let genSpecializedAttr = 0;
}

def Kiln_MatmulPrecisionAttr
    : EnumAttr<Kiln_Dialect, Kiln_MatmulPrecision, "precision">;

// The communication between ranks: every collective reads and writes it, so
// that no pass merges, drops or reorders collectives (every rank must run
// the same ones in the same order).
def Kiln_CommunicationResource
    : Resource<"::kiln::CommunicationResource">;

//===----------------------------------------------------------------------===//
// Op base classes
//===----------------------------------------------------------------------===//

class Kiln_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kiln_Dialect, mnemonic, traits>;

// The traits of every elementwise op: its scalar semantics, written once
// (Kiln_ScalarSemantics in KilnOps.td, or KilnScalarSemantics.cpp), from
// which constant folding follows.
// `rhs` has `lhs`'s element type. The assembly format infers `rhs`'s type as
// `lhs`'s; shapes are Kiln_ElementwiseShapes' to check, which names them.
class Kiln_SameElementTypeAs<string lhs, string rhs>
  : TypesMatchWith<lhs # " and " # rhs # " have one element type", lhs, rhs,
      "$_self",
      "[](::mlir::Type a, ::mlir::Type b) { return "
      "::mlir::getElementTypeOrSelf(a) == ::mlir::getElementTypeOrSelf(b); }">;

defvar Kiln_ElementwiseTraits = [
  Kiln_ElementwiseShapes, Pure, Elementwise,
  DeclareOpInterfaceMethods<Kiln_ScalarSemanticsOpInterface>,
  Kiln_FoldsConstantElements
];

// Elementwise ops of one float type: T -> T and T, T -> T.
class Kiln_ElementwiseOp<string mnemonic, list<Trait> traits = []>
    : Kiln_Op<mnemonic,
              !listconcat(traits, Kiln_ElementwiseTraits,
                          [SameOperandsAndResultType])>;

class Kiln_UnaryOp<string mnemonic, list<Trait> traits = [],
                   Type tensor = Kiln_FloatTensor>
    : Kiln_ElementwiseOp<mnemonic, traits> {
  let arguments = (ins tensor:$operand);
  let results = (outs tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
}

class Kiln_BinaryOp<string mnemonic, list<Trait> traits = [],
                    Type tensor = Kiln_FloatTensor>
    : Kiln_ElementwiseOp<mnemonic, traits> {
  let arguments = (ins tensor:$lhs, tensor:$rhs);
  let results = (outs tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
  let hasFolder = 1;
}

// Ops that change a tensor's layout or shape; the result type is written
// out in the custom form so that shapes stay readable.
class Kiln_ShapeOp<string mnemonic, list<Trait> traits = []>
    : Kiln_Op<mnemonic, !listconcat(traits, [Pure])> {
  let results = (outs Kiln_Tensor:$result);
}

class Kiln_ReduceOp<string mnemonic, list<Trait> traits = []>
    : Kiln_Op<mnemonic, !listconcat(traits,
              [Pure, InferTypeOpAdaptorWithIsCompatible])> {
  let arguments = (ins Kiln_NumericTensor:$operand, DenseI64ArrayAttr:$dims);
  let results = (outs Kiln_NumericTensor:$result);
  let assemblyFormat = [{
    $operand `,` `dims` `=` $dims attr-dict `:` type($operand) `->`
    type($result)
  }];
  let hasFolder = 1;
}

#endif // KILN_DIALECT_KILN_IR_KILNBASE_TD

// Collectives over the ranks of communicator `group` (0: the world). Not
// Pure: they read and write Kiln_CommunicationResource.
class Kiln_CollectiveOp<string mnemonic, list<Trait> traits = []>
    : Kiln_Op<mnemonic, !listconcat(traits, [
        MemoryEffects<[MemRead<Kiln_CommunicationResource>,
                       MemWrite<Kiln_CommunicationResource>]>])> {
  let results = (outs Kiln_FloatTensor:$result);
  let hasVerifier = 1;
}
