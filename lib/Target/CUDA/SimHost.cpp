//===- SimHost.cpp - The NVVM-level kernels lowered for cuda-sim ----------===//
//
// bwc-cuda-sim-host: the kernels the NVPTX back end compiles, after the
// same NVVM conversion, become host code that calls the cuda-sim emulator
// for everything a CPU does not have (special registers, barriers, warp
// shuffles, tensor-core mma, ldmatrix, cp.async, shared memory) and for
// every memory access,
// which the sanitizers check. Nothing of the kernel's own arithmetic or
// indexing changes, so the emulator runs what the GPU would run, up to the
// NVPTX back end. docs/targets/cuda-sim.md describes the design.
//
//===----------------------------------------------------------------------===//
#include "bwc/Runtime/CudaSim.h"
#include "bwc/Target/CPU/SharedObject.h"
#include "bwc/Target/CUDA/CudaTarget.h"
#include "bwc/Target/CUDA/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::bwc {
#define GEN_PASS_DEF_CUDASIMHOSTPASS
#include "bwc/Target/CUDA/Passes.h.inc"
} // namespace mlir::bwc

using namespace mlir;
using namespace mlir::bwc;
namespace rt = ::bwc::rt;
namespace sim = ::bwc::rt::sim;

namespace {

constexpr llvm::StringLiteral kHooksName = "__bwcsim_hooks";
constexpr llvm::StringLiteral kAbiName = "__bwcsim_abi";
constexpr llvm::StringLiteral kCounterName = "__bwcsim_instructions";
constexpr llvm::StringLiteral kBodyPrefix = "__bwcsim_body_";

/// "model.onnx:3:7" / "'node' (model.onnx:3:7)" for a diagnostic line.
std::string describeLoc(Location loc) {
  if (auto f = dyn_cast<FileLineColLoc>(loc))
    return (f.getFilename().getValue() + ":" + Twine(f.getLine()) + ":" +
            Twine(f.getColumn()))
        .str();
  if (auto n = dyn_cast<NameLoc>(loc)) {
    std::string child = describeLoc(n.getChildLoc());
    return "'" + n.getName().str() + "'" +
           (child.empty() ? "" : " (" + child + ")");
  }
  if (auto c = dyn_cast<CallSiteLoc>(loc))
    return describeLoc(c.getCallee());
  if (auto f = dyn_cast<FusedLoc>(loc)) {
    std::string s;
    for (Location l : f.getLocations()) {
      std::string part = describeLoc(l);
      if (!part.empty() && s.find(part) == std::string::npos)
        s += (s.empty() ? "" : ", ") + part;
    }
    return s;
  }
  return "";
}

/// Whether `t` is bf16 or a vector of bf16.
bool isBF16(Type t) {
  if (!t)
    return false;
  if (auto v = dyn_cast<VectorType>(t))
    t = v.getElementType();
  return t.isBF16();
}

/// `t`'s shape with element type `e`.
Type withElement(Type t, Type e) {
  if (auto v = dyn_cast<VectorType>(t))
    return VectorType::get(v.getShape(), e);
  return e;
}

/// The host has no bf16 conversion instruction (and Debian 12's libgcc no
/// __truncsfbf2): f32 -> bf16 as PTX's cvt.rn.bf16.f32 defines it
/// (round to nearest even, a NaN stays a NaN), bf16 -> f32 as the exact
/// widening, in integer arithmetic.
LogicalResult expandBF16Conversion(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value x = op->getOperand(0);
  Type from = x.getType(), to = op->getResult(0).getType();
  Type i32 = withElement(from, b.getI32Type()),
       i16 = withElement(from, b.getIntegerType(16));
  auto constant = [&](Type t, int64_t v) -> Value {
    Type e = getElementTypeOrSelf(t);
    Attribute a = b.getIntegerAttr(e, v);
    if (auto vt = dyn_cast<VectorType>(t))
      a = SplatElementsAttr::get(vt, a);
    return LLVM::ConstantOp::create(b, loc, t, cast<TypedAttr>(a));
  };
  Value result;
  if (isa<LLVM::FPExtOp>(op)) {
    if (!getElementTypeOrSelf(to).isF32())
      return op->emitError() << "cuda-sim widens bf16 to f32 only";
    Value bits = LLVM::BitcastOp::create(b, loc, i16, x);
    Value wide = LLVM::ZExtOp::create(b, loc, withElement(to, b.getI32Type()),
                                      bits);
    wide = LLVM::ShlOp::create(b, loc, wide,
                               constant(wide.getType(), 16));
    result = LLVM::BitcastOp::create(b, loc, to, wide);
  } else {
    if (!getElementTypeOrSelf(from).isF32())
      return op->emitError() << "cuda-sim narrows f32 to bf16 only";
    Value bits = LLVM::BitcastOp::create(b, loc, i32, x);
    Value lsb = LLVM::AndOp::create(
        b, loc, LLVM::LShrOp::create(b, loc, bits, constant(i32, 16)),
        constant(i32, 1));
    Value rounded = LLVM::AddOp::create(
        b, loc, bits, LLVM::AddOp::create(b, loc, lsb, constant(i32, 0x7FFF)));
    Value high = LLVM::LShrOp::create(b, loc, rounded, constant(i32, 16));
    Value nan = LLVM::FCmpOp::create(b, loc, LLVM::FCmpPredicate::uno, x, x);
    high = LLVM::SelectOp::create(b, loc, nan, constant(i32, 0x7FC0), high);
    Value narrow = LLVM::TruncOp::create(b, loc, i16, high);
    result = LLVM::BitcastOp::create(b, loc, to, narrow);
  }
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
  return success();
}

/// What a memory address derives from.
struct Root {
  enum Kind { unknown, param, shared, stack } kind = unknown;
  int32_t index = -1;
};

class HostLowering {
public:
  HostLowering(ModuleOp module, gpu::GPUModuleOp gpuModule)
      : module(module), gpuModule(gpuModule), b(module.getContext()),
        ptrType(LLVM::LLVMPointerType::get(module.getContext())) {}

  LogicalResult run();

private:
  LogicalResult lowerKernel(LLVM::LLVMFuncOp f, uint32_t kernel);
  Root trace(Value address);
  int32_t addSite(uint32_t kernel, rt::SimSiteKind kind, Operation *op,
                  rt::SimSpace space = rt::SimSpace::global,
                  uint32_t bytes = 0, uint32_t align = 1, int32_t root = -1);
  /// Calls hook `hook` with `args`; `result` null for void.
  Value callHook(Location loc, sim::Hook hook, Type result,
                 ArrayRef<Value> args);
  Value i32(Location loc, int64_t v) {
    return LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                    b.getI32IntegerAttr(int32_t(v)));
  }
  LogicalResult moveToHost();

  ModuleOp module;
  gpu::GPUModuleOp gpuModule;
  OpBuilder b;
  Type ptrType;
  std::string kernelName;
  DenseMap<StringAttr, int32_t> sharedIndex; // per kernel
  SmallVector<Attribute> sites;
};

Value HostLowering::callHook(Location loc, sim::Hook hook, Type result,
                             ArrayRef<Value> args) {
  MLIRContext *ctx = b.getContext();
  auto table = LLVM::AddressOfOp::create(b, loc, ptrType, kHooksName);
  auto arrayType = LLVM::LLVMArrayType::get(ptrType, sim::kNumHooks);
  Value slot = LLVM::GEPOp::create(b, loc, ptrType, arrayType, table,
                                   ArrayRef<LLVM::GEPArg>{0, int32_t(hook)});
  Value fn = LLVM::LoadOp::create(b, loc, ptrType, slot);
  SmallVector<Type> argTypes;
  for (Value a : args)
    argTypes.push_back(a.getType());
  auto type = LLVM::LLVMFunctionType::get(
      result ? result : LLVM::LLVMVoidType::get(ctx), argTypes);
  SmallVector<Value> operands{fn};
  operands.append(args.begin(), args.end());
  auto call = LLVM::CallOp::create(b, loc, type, operands);
  return result ? call.getResult() : Value();
}

int32_t HostLowering::addSite(uint32_t kernel, rt::SimSiteKind kind,
                              Operation *op, rt::SimSpace space,
                              uint32_t bytes, uint32_t align, int32_t root) {
  std::string where = describeLoc(op->getLoc());
  std::string loc = kernelName + ": " + op->getName().getStringRef().str() +
                    (where.empty() ? "" : " at " + where);
  NamedAttrList attrs;
  attrs.append("kernel", b.getI32IntegerAttr(kernel));
  attrs.append("kind", b.getI32IntegerAttr(int32_t(kind)));
  attrs.append("space", b.getI32IntegerAttr(int32_t(space)));
  attrs.append("bytes", b.getI32IntegerAttr(bytes));
  attrs.append("align", b.getI32IntegerAttr(align));
  attrs.append("root", b.getI32IntegerAttr(root));
  attrs.append("loc", b.getStringAttr(loc));
  sites.push_back(attrs.getDictionary(b.getContext()));
  return int32_t(sites.size() - 1);
}

/// Follows an address back through GEPs, casts and the memref descriptor's
/// insert/extract chains to a kernel parameter, a shared global or a stack
/// slot.
Root HostLowering::trace(Value v) {
  for (int steps = 0; steps < 256; ++steps) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      auto f = dyn_cast<LLVM::LLVMFuncOp>(arg.getOwner()->getParentOp());
      if (f && arg.getOwner()->isEntryBlock())
        return {Root::param, int32_t(arg.getArgNumber())};
      return {};
    }
    Operation *op = v.getDefiningOp();
    if (auto gep = dyn_cast<LLVM::GEPOp>(op)) {
      v = gep.getBase();
    } else if (auto cast = dyn_cast<LLVM::AddrSpaceCastOp>(op)) {
      v = cast.getArg();
    } else if (auto cast = dyn_cast<LLVM::BitcastOp>(op)) {
      v = cast.getArg();
    } else if (isa<LLVM::AllocaOp>(op)) {
      return {Root::stack, -1};
    } else if (auto addr = dyn_cast<LLVM::AddressOfOp>(op)) {
      auto it = sharedIndex.find(addr.getGlobalNameAttr().getAttr());
      if (it != sharedIndex.end())
        return {Root::shared, it->second};
      return {};
    } else if (auto extract = dyn_cast<LLVM::ExtractValueOp>(op)) {
      // A field of a memref descriptor built by insertvalues.
      Value container = extract.getContainer();
      ArrayRef<int64_t> pos = extract.getPosition();
      Value found;
      while (auto insert = container.getDefiningOp<LLVM::InsertValueOp>()) {
        if (insert.getPosition() == pos) {
          found = insert.getValue();
          break;
        }
        container = insert.getContainer();
      }
      if (!found)
        return {};
      v = found;
    } else {
      return {};
    }
  }
  return {};
}

LogicalResult HostLowering::lowerKernel(LLVM::LLVMFuncOp f, uint32_t kernel) {
  kernelName = f.getName().str();
  DataLayout layout = DataLayout::closest(f);
  MLIRContext *ctx = f.getContext();

  // Shared arrays: the workgroup globals the kernel addresses, each at a
  // 16-byte aligned offset of the block's arena.
  sharedIndex.clear();
  SmallVector<Attribute> arrays;
  uint64_t sharedBytes = 0;
  f.walk([&](LLVM::AddressOfOp addr) {
    auto global = dyn_cast_or_null<LLVM::GlobalOp>(
        SymbolTable::lookupSymbolIn(gpuModule, addr.getGlobalNameAttr()));
    if (!global || global.getAddrSpace() != 3 ||
        sharedIndex.count(addr.getGlobalNameAttr().getAttr()))
      return;
    uint64_t align = std::max<uint64_t>(16, global.getAlignment().value_or(1));
    uint64_t bytes = layout.getTypeSize(global.getGlobalType());
    sharedBytes = (sharedBytes + align - 1) / align * align;
    arrays.push_back(b.getDenseI64ArrayAttr(
        {int64_t(sharedBytes), int64_t(bytes)}));
    sharedIndex[addr.getGlobalNameAttr().getAttr()] = int32_t(arrays.size() - 1);
    sharedBytes += bytes;
  });

  // Rewrite. Collect first: the rewrites add loads (of the hook table)
  // that must not be instrumented.
  SmallVector<Operation *> ops;
  SmallVector<LLVM::AddressOfOp> addresses;
  Value mmaSlots[4] = {};
  Value ldmatrixSlot;
  f.walk([&](Operation *op) { ops.push_back(op); });
  // The emulator's instruction count: each block adds its NVVM-level ops
  // (about one PTX instruction each, constants included) when it runs.
  SmallVector<std::pair<Block *, int64_t>> blockSizes;
  for (Block &block : f.getBody())
    blockSizes.push_back({&block, int64_t(block.getOperations().size())});
  bool usesSync = false;
  for (Operation *op : ops) {
    Location loc = op->getLoc();
    if (auto addr = dyn_cast<LLVM::AddressOfOp>(op)) {
      if (!sharedIndex.count(addr.getGlobalNameAttr().getAttr()))
        return op->emitError()
               << "cuda-sim has no host model for global @"
               << addr.getGlobalName()
               << " (only workgroup arrays) in kernel " << kernelName;
      addresses.push_back(addr);
      continue;
    }
    b.setInsertionPoint(op);
    auto sreg = llvm::TypeSwitch<Operation *, int>(op)
                    .Case([](NVVM::ThreadIdXOp) { return sim::kTidX; })
                    .Case([](NVVM::ThreadIdYOp) { return sim::kTidY; })
                    .Case([](NVVM::ThreadIdZOp) { return sim::kTidZ; })
                    .Case([](NVVM::BlockDimXOp) { return sim::kNtidX; })
                    .Case([](NVVM::BlockDimYOp) { return sim::kNtidY; })
                    .Case([](NVVM::BlockDimZOp) { return sim::kNtidZ; })
                    .Case([](NVVM::BlockIdXOp) { return sim::kCtaidX; })
                    .Case([](NVVM::BlockIdYOp) { return sim::kCtaidY; })
                    .Case([](NVVM::BlockIdZOp) { return sim::kCtaidZ; })
                    .Case([](NVVM::GridDimXOp) { return sim::kNctaidX; })
                    .Case([](NVVM::GridDimYOp) { return sim::kNctaidY; })
                    .Case([](NVVM::GridDimZOp) { return sim::kNctaidZ; })
                    .Case([](NVVM::LaneIdOp) { return sim::kLaneId; })
                    .Case([](NVVM::WarpSizeOp) { return sim::kWarpSize; })
                    .Default([](Operation *) { return -1; });
    if (sreg >= 0) {
      Value r = callHook(loc, sim::kHookSreg, b.getI32Type(), {i32(loc, sreg)});
      if (op->getResult(0).getType() != r.getType())
        return op->emitError() << "expects an i32 special register";
      op->getResult(0).replaceAllUsesWith(r);
      op->erase();
      continue;
    }
    if (isa<NVVM::Barrier0Op>(op) ||
        (isa<NVVM::BarrierOp>(op) && op->getNumOperands() == 0 &&
         op->getNumResults() == 0)) {
      int32_t site = addSite(kernel, rt::SimSiteKind::barrier, op);
      callHook(loc, sim::kHookBarrier, Type(), {i32(loc, site)});
      op->erase();
      usesSync = true;
      continue;
    }
    if (auto shfl = dyn_cast<NVVM::ShflOp>(op)) {
      int32_t site = addSite(kernel, rt::SimSiteKind::shuffle, op);
      Type valueType = shfl.getVal().getType();
      Value value = shfl.getVal();
      if (valueType.isF32())
        value = LLVM::BitcastOp::create(b, loc, b.getI32Type(), value);
      Value r = callHook(loc, sim::kHookShuffle, b.getI64Type(),
                         {i32(loc, site),
                          i32(loc, int32_t(shfl.getKind())),
                          shfl.getThreadMask(), value, shfl.getOffset(),
                          shfl.getMaskAndClamp()});
      Value result = LLVM::TruncOp::create(b, loc, b.getI32Type(), r);
      if (valueType.isF32())
        result = LLVM::BitcastOp::create(b, loc, valueType, result);
      if (shfl.getReturnValueAndIsValid()) {
        Value high = LLVM::LShrOp::create(
            b, loc, r,
            LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                     b.getI64IntegerAttr(32)));
        Value valid = LLVM::TruncOp::create(b, loc, b.getI1Type(), high);
        Value s = LLVM::PoisonOp::create(b, loc, shfl.getType());
        s = LLVM::InsertValueOp::create(b, loc, s, result,
                                        ArrayRef<int64_t>{0});
        result = LLVM::InsertValueOp::create(b, loc, s, valid,
                                             ArrayRef<int64_t>{1});
      }
      shfl.getResult().replaceAllUsesWith(result);
      op->erase();
      usesSync = true;
      continue;
    }
    if (auto mma = dyn_cast<NVVM::MmaOp>(op)) {
      NVVM::MMAShapeAttr shape = mma.getShapeAttr();
      auto aType = mma.getMultiplicandAPtxType();
      auto bType = mma.getMultiplicandBPtxType();
      bool ok = shape.getM() == 16 && shape.getN() == 8 && shape.getK() == 16 &&
                aType && aType == bType &&
                (*aType == NVVM::MMATypes::f16 ||
                 *aType == NVVM::MMATypes::bf16) &&
                mma.getLayoutA() == NVVM::MMALayout::row &&
                mma.getLayoutB() == NVVM::MMALayout::col &&
                mma.getOperandA().size() == 4 &&
                mma.getOperandB().size() == 2 &&
                mma.getOperandC().size() == 4 &&
                llvm::all_of(mma.getOperandC(),
                             [](Value c) { return c.getType().isF32(); });
      auto resultType = dyn_cast<LLVM::LLVMStructType>(mma.getType());
      ok = ok && resultType && resultType.getBody().size() == 4 &&
           llvm::all_of(resultType.getBody(),
                        [](Type t) { return t.isF32(); });
      if (!ok)
        return op->emitError()
               << "cuda-sim models mma.sync m16n8k16 row.col with f16/bf16 "
                  "operands and f32 accumulators only, in kernel "
               << kernelName;
      int32_t site = addSite(kernel, rt::SimSiteKind::mma, op,
                             rt::SimSpace::global,
                             *aType == NVVM::MMATypes::bf16 ? 1 : 0);
      // Fragments through stack arrays: A 4 x i32, B 2 x i32, C, D 4 x f32,
      // allocated once in the entry block (an alloca in the K loop would
      // take new stack at every step).
      if (!mmaSlots[0]) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(&f.getBody().front());
        auto one = LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                            b.getI64IntegerAttr(1));
        auto slots = [&](Type element, int64_t n) {
          return LLVM::AllocaOp::create(
              b, loc, ptrType, LLVM::LLVMArrayType::get(element, n), one, 16);
        };
        mmaSlots[0] = slots(b.getI32Type(), 4);
        mmaSlots[1] = slots(b.getI32Type(), 2);
        mmaSlots[2] = slots(b.getF32Type(), 4);
        mmaSlots[3] = slots(b.getF32Type(), 4);
      }
      Value pa = mmaSlots[0], pb = mmaSlots[1], pc = mmaSlots[2],
            pd = mmaSlots[3];
      auto put = [&](Value base, Type element, int64_t i, Value v) {
        if (v.getType() != element)
          v = LLVM::BitcastOp::create(b, loc, element, v);
        Value p = LLVM::GEPOp::create(b, loc, ptrType, element, base,
                                      ArrayRef<LLVM::GEPArg>{int32_t(i)});
        LLVM::StoreOp::create(b, loc, v, p);
      };
      for (auto [i, v] : llvm::enumerate(mma.getOperandA()))
        put(pa, b.getI32Type(), i, v);
      for (auto [i, v] : llvm::enumerate(mma.getOperandB()))
        put(pb, b.getI32Type(), i, v);
      for (auto [i, v] : llvm::enumerate(mma.getOperandC()))
        put(pc, b.getF32Type(), i, v);
      callHook(loc, sim::kHookMma, Type(), {i32(loc, site), pa, pb, pc, pd});
      Value s = LLVM::PoisonOp::create(b, loc, mma.getType());
      for (int64_t i = 0; i < 4; ++i) {
        Value p = LLVM::GEPOp::create(b, loc, ptrType, b.getF32Type(), pd,
                                      ArrayRef<LLVM::GEPArg>{int32_t(i)});
        Value d = LLVM::LoadOp::create(b, loc, b.getF32Type(), p);
        s = LLVM::InsertValueOp::create(b, loc, s, d, ArrayRef<int64_t>{i});
      }
      mma.getResult().replaceAllUsesWith(s);
      op->erase();
      usesSync = true;
      continue;
    }
    if (auto copy = dyn_cast<NVVM::CpAsyncOp>(op)) {
      // Two sites: the global read and the shared write, each of the size.
      uint32_t bytes = copy.getSize();
      Root from = trace(copy.getSrc()), to = trace(copy.getDst());
      if (to.kind != Root::shared)
        return op->emitError() << "cuda-sim cannot trace this cp.async "
                                  "destination to its shared array in kernel "
                               << kernelName;
      int32_t loadSite = addSite(
          kernel, rt::SimSiteKind::load, op, rt::SimSpace::global, bytes,
          bytes, from.kind == Root::param ? from.index : -1);
      int32_t storeSite = addSite(kernel, rt::SimSiteKind::store, op,
                                  rt::SimSpace::shared, bytes, bytes, to.index);
      Value srcBytes = copy.getCpSize() ? copy.getCpSize() : i32(loc, bytes);
      Value dst = LLVM::AddrSpaceCastOp::create(b, loc, ptrType, copy.getDst());
      Value src = LLVM::AddrSpaceCastOp::create(b, loc, ptrType, copy.getSrc());
      callHook(loc, sim::kHookCpAsync, Type(),
               {i32(loc, loadSite), i32(loc, storeSite), dst, src, srcBytes});
      op->erase();
      continue;
    }
    if (isa<NVVM::CpAsyncCommitGroupOp>(op)) {
      callHook(loc, sim::kHookCpAsyncCommit, Type(), {});
      op->erase();
      continue;
    }
    if (auto wait = dyn_cast<NVVM::CpAsyncWaitGroupOp>(op)) {
      callHook(loc, sim::kHookCpAsyncWait, Type(),
               {i32(loc, int32_t(wait.getN()))});
      op->erase();
      continue;
    }
    if (auto ld = dyn_cast<NVVM::LdMatrixOp>(op)) {
      int32_t num = int32_t(ld.getNum());
      bool ok = ld.getShape().getM() == 8 && ld.getShape().getN() == 8 &&
                ld.getEltType() == NVVM::LdStMatrixEltType::B16 &&
                (num == 1 || num == 2 || num == 4);
      if (!ok)
        return op->emitError() << "cuda-sim models ldmatrix m8n8 of b16 "
                                  "(x1, x2, x4) only, in kernel "
                               << kernelName;
      Root root = trace(ld.getPtr());
      if (root.kind != Root::shared)
        return op->emitError() << "cuda-sim cannot trace this ldmatrix "
                                  "address to its shared array in kernel "
                               << kernelName;
      int32_t site = addSite(kernel, rt::SimSiteKind::ldmatrix, op,
                             rt::SimSpace::shared, uint32_t(num));
      int32_t loadSite = addSite(kernel, rt::SimSiteKind::load, op,
                                 rt::SimSpace::shared, 16, 16, root.index);
      if (!ldmatrixSlot) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(&f.getBody().front());
        auto one = LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                            b.getI64IntegerAttr(1));
        ldmatrixSlot = LLVM::AllocaOp::create(
            b, loc, ptrType, LLVM::LLVMArrayType::get(b.getI32Type(), 4), one,
            16);
      }
      Value row = LLVM::AddrSpaceCastOp::create(b, loc, ptrType, ld.getPtr());
      bool trans = ld.getLayout() == NVVM::MMALayout::col;
      callHook(loc, sim::kHookLdMatrix, Type(),
               {i32(loc, site), i32(loc, loadSite), row, i32(loc, num),
                i32(loc, trans ? 1 : 0), ldmatrixSlot});
      auto get = [&](int64_t i) -> Value {
        Value p = LLVM::GEPOp::create(b, loc, ptrType, b.getI32Type(),
                                      ldmatrixSlot,
                                      ArrayRef<LLVM::GEPArg>{int32_t(i)});
        return LLVM::LoadOp::create(b, loc, b.getI32Type(), p);
      };
      Value result;
      if (num == 1) {
        result = get(0);
      } else {
        result = LLVM::PoisonOp::create(b, loc, ld.getType());
        for (int64_t i = 0; i < num; ++i)
          result = LLVM::InsertValueOp::create(b, loc, result, get(i),
                                               ArrayRef<int64_t>{i});
      }
      if (result.getType() != ld.getType())
        return op->emitError() << "expects an ldmatrix result of i32 or a "
                                  "struct of i32 in kernel "
                               << kernelName;
      ld.getResult().replaceAllUsesWith(result);
      op->erase();
      usesSync = true;
      continue;
    }
    if (isa<LLVM::LoadOp, LLVM::StoreOp>(op)) {
      auto load = dyn_cast<LLVM::LoadOp>(op);
      auto store = dyn_cast<LLVM::StoreOp>(op);
      Value address = load ? load.getAddr() : store.getAddr();
      Root root = trace(address);
      if (root.kind == Root::stack)
        continue;
      Type type = load ? load.getType() : store.getValue().getType();
      uint64_t bytes = layout.getTypeSize(type);
      uint64_t align = load ? load.getAlignment().value_or(0)
                            : store.getAlignment().value_or(0);
      if (!align)
        align = layout.getTypeABIAlignment(type);
      align = std::min<uint64_t>(align, std::max<uint64_t>(bytes, 1));
      while (align & (align - 1))
        align &= align - 1;
      unsigned space =
          cast<LLVM::LLVMPointerType>(address.getType()).getAddressSpace();
      bool shared = root.kind == Root::shared || space == 3;
      if (shared && root.kind != Root::shared)
        return op->emitError() << "cuda-sim cannot trace this shared-memory "
                                  "address to its array in kernel "
                               << kernelName;
      int32_t site = addSite(
          kernel, load ? rt::SimSiteKind::load : rt::SimSiteKind::store, op,
          shared ? rt::SimSpace::shared : rt::SimSpace::global,
          uint32_t(bytes), uint32_t(align),
          root.kind == Root::unknown ? -1 : root.index);
      Value generic = address;
      if (space != 0)
        generic = LLVM::AddrSpaceCastOp::create(b, loc, ptrType, address);
      Value checked = callHook(loc, sim::kHookAccess, ptrType,
                               {generic, i32(loc, site)});
      op->setOperand(load ? 0 : 1, checked);
      continue;
    }
    if (isa<LLVM::FPTruncOp, LLVM::FPExtOp>(op) &&
        isBF16(op->getNumResults() ? op->getResult(0).getType() : Type()) !=
            isBF16(op->getOperand(0).getType())) {
      if (failed(expandBF16Conversion(op)))
        return failure();
      continue;
    }
    if (isa<LLVM::AtomicRMWOp, LLVM::AtomicCmpXchgOp, LLVM::MemcpyOp,
            LLVM::MemmoveOp, LLVM::MemsetOp, LLVM::MaskedLoadOp,
            LLVM::MaskedStoreOp, LLVM::masked_gather, LLVM::masked_scatter>(
            op))
      return op->emitError() << "cuda-sim has no access check for '"
                             << op->getName() << "' in kernel " << kernelName;
    if (op->getDialect() &&
        op->getDialect()->getNamespace() ==
            NVVM::NVVMDialect::getDialectNamespace())
      return op->emitError() << "cuda-sim cannot emulate '" << op->getName()
                             << "' in kernel " << kernelName;
  }

  // Shared globals: the block's arrays through the shared hook.
  for (LLVM::AddressOfOp addr : addresses) {
    auto it = sharedIndex.find(addr.getGlobalNameAttr().getAttr());
    if (it == sharedIndex.end())
      continue;
    Location loc = addr.getLoc();
    b.setInsertionPoint(addr);
    Value p = callHook(loc, sim::kHookShared, ptrType, {i32(loc, it->second)});
    Value shared = LLVM::AddrSpaceCastOp::create(
        b, loc, LLVM::LLVMPointerType::get(ctx, 3), p);
    addr.getResult().replaceAllUsesWith(shared);
    addr.erase();
  }

  for (auto [block, size] : blockSizes) {
    Location loc = f.getLoc();
    b.setInsertionPointToStart(block);
    Value counter = LLVM::AddressOfOp::create(b, loc, ptrType, kCounterName);
    Value count = LLVM::LoadOp::create(b, loc, b.getI64Type(), counter);
    Value add = LLVM::AddOp::create(
        b, loc, count,
        LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                 b.getI64IntegerAttr(size)));
    LLVM::StoreOp::create(b, loc, add, counter);
  }

  NamedAttrList info;
  info.append("params", b.getI32IntegerAttr(f.getNumArguments()));
  info.append("shared_bytes", b.getI32IntegerAttr(int32_t(sharedBytes)));
  info.append("shared", b.getArrayAttr(arrays));
  info.append("sync", b.getBoolAttr(usesSync));
  f->setAttr(kSimKernelAttrName, info.getDictionary(ctx));
  return success();
}

LogicalResult HostLowering::moveToHost() {
  MLIRContext *ctx = module.getContext();
  b.setInsertionPointToEnd(module.getBody());
  Location loc = module.getLoc();
  auto hooksType = LLVM::LLVMArrayType::get(ptrType, sim::kNumHooks);
  // An array of pointers has no zero attribute: initialized by a region.
  auto hooks = LLVM::GlobalOp::create(b, loc, hooksType, /*isConstant=*/false,
                                      LLVM::Linkage::External, kHooksName,
                                      Attribute());
  {
    Block *init = b.createBlock(&hooks.getInitializerRegion());
    b.setInsertionPointToStart(init);
    Value zero = LLVM::ZeroOp::create(b, loc, hooksType);
    LLVM::ReturnOp::create(b, loc, zero);
  }
  b.setInsertionPointToEnd(module.getBody());
  LLVM::GlobalOp::create(b, loc, b.getI32Type(), /*isConstant=*/true,
                         LLVM::Linkage::External, kAbiName,
                         b.getI32IntegerAttr(sim::kSimAbiVersion));
  LLVM::GlobalOp::create(b, loc, b.getI64Type(), /*isConstant=*/false,
                         LLVM::Linkage::External, kCounterName,
                         b.getI64IntegerAttr(0));

  // x86 keeps bf16 values (phis, selects) in f32 registers and narrows
  // them with __truncsfbf2, which Debian 12's libgcc lacks: the object
  // defines it, as the same round-to-nearest-even narrowing.
  {
    auto fnType = LLVM::LLVMFunctionType::get(b.getBF16Type(), {b.getF32Type()});
    auto trunc = LLVM::LLVMFuncOp::create(b, loc, "__truncsfbf2", fnType,
                                          LLVM::Linkage::WeakODR);
    trunc.setVisibility_(LLVM::Visibility::Hidden);
    Block *body = trunc.addEntryBlock(b);
    b.setInsertionPointToStart(body);
    auto narrow = LLVM::FPTruncOp::create(b, loc, b.getBF16Type(),
                                          body->getArgument(0));
    LLVM::ReturnOp::create(b, loc, narrow.getResult());
    if (failed(expandBF16Conversion(narrow)))
      return failure();
    b.setInsertionPointToEnd(module.getBody());
  }

  for (Operation &op : llvm::make_early_inc_range(*gpuModule.getBody())) {
    if (auto g = dyn_cast<LLVM::GlobalOp>(op); g && g.getAddrSpace() == 3)
      continue; // replaced by the shared hook
    op.remove();
    module.getBody()->push_back(&op);
  }
  gpuModule.erase();
  module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());

  SmallVector<LLVM::LLVMFuncOp> kernels;
  for (auto f : module.getOps<LLVM::LLVMFuncOp>())
    if (f->hasAttr(kSimKernelAttrName))
      kernels.push_back(f);
  for (LLVM::LLVMFuncOp f : kernels) {
    std::string name = f.getName().str();
    SmallVector<NamedAttribute> keep;
    for (NamedAttribute a : f->getDiscardableAttrs())
      if (!a.getName().getValue().starts_with("nvvm.") &&
          !a.getName().getValue().starts_with("gpu."))
        keep.push_back(a);
    f->setDiscardableAttrs(keep);
    f.setName((kBodyPrefix + name).str());
    f.setLinkage(LLVM::Linkage::Internal);
    f->removeAttr("sym_visibility");
    // void <name>(void **params): params[i] points to a CUdeviceptr.
    b.setInsertionPointAfter(f);
    Location floc = f.getLoc();
    auto entry = LLVM::LLVMFuncOp::create(
        b, floc, name,
        LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {ptrType}));
    entry->setAttr(kSimKernelAttrName, f->getAttr(kSimKernelAttrName));
    f->removeAttr(kSimKernelAttrName);
    Block *body = entry.addEntryBlock(b);
    b.setInsertionPointToStart(body);
    SmallVector<Value> args;
    for (unsigned i = 0; i < f.getNumArguments(); ++i) {
      Value slot = LLVM::GEPOp::create(b, floc, ptrType, ptrType,
                                       body->getArgument(0),
                                       ArrayRef<LLVM::GEPArg>{int32_t(i)});
      Value devicePtr = LLVM::LoadOp::create(b, floc, ptrType, slot);
      Value arg = LLVM::LoadOp::create(b, floc, ptrType, devicePtr);
      if (arg.getType() != f.getArgument(i).getType())
        return f.emitError() << "expects pointer kernel parameters for "
                                "cuda-sim but parameter "
                             << i << " is " << f.getArgument(i).getType();
      args.push_back(arg);
    }
    LLVM::CallOp::create(b, floc, f, args);
    LLVM::ReturnOp::create(b, floc, ValueRange{});
  }
  return success();
}

LogicalResult HostLowering::run() {
  uint32_t kernel = 0;
  for (auto f : gpuModule.getOps<LLVM::LLVMFuncOp>()) {
    if (f.isExternal())
      return f.emitError() << "expects no external functions in the kernels "
                              "but got @"
                           << f.getName();
    if (!f->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()) &&
        !f->hasAttr(gpu::GPUDialect::getKernelFuncAttrName()))
      return f.emitError() << "expects only kernels in the gpu.module";
    if (failed(lowerKernel(f, kernel++)))
      return failure();
  }
  module->setAttr(kSimSitesAttrName, b.getArrayAttr(sites));
  return moveToHost();
}

struct CudaSimHostPass
    : mlir::bwc::impl::CudaSimHostPassBase<CudaSimHostPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto gpuModule = module.lookupSymbol<gpu::GPUModuleOp>("bwc_kernels");
    if (!gpuModule) {
      module.emitError() << "expects a gpu.module @bwc_kernels";
      return signalPassFailure();
    }
    if (failed(HostLowering(module, gpuModule).run()))
      signalPassFailure();
  }
};

int64_t intField(DictionaryAttr d, StringRef name) {
  auto a = d ? d.getAs<IntegerAttr>(name) : IntegerAttr();
  return a ? a.getInt() : -1;
}

} // namespace

FailureOr<rt::SimCode>
mlir::bwc::lowerGpuKernelsForSim(ModuleOp program, const rt::Artifact &artifact,
                                 std::string *hostText) {
  auto gpuModule = program.lookupSymbol<gpu::GPUModuleOp>("bwc_kernels");
  if (!gpuModule)
    return program.emitError() << "expects a gpu.module @bwc_kernels",
           failure();
  OwningOpRef<ModuleOp> host = ModuleOp::create(program.getLoc());
  (*host)->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                   UnitAttr::get(program.getContext()));
  host->push_back(gpuModule->clone());
  if (failed(lowerGpuModuleToNVVM(*host)))
    return failure();
  PassManager pm(program.getContext());
  pm.addPass(createCudaSimHostPass());
  pm.addPass(createCanonicalizerPass());
  if (failed(pm.run(*host)))
    return failure();
  if (hostText) {
    llvm::raw_string_ostream os(*hostText);
    host->print(os);
  }

  rt::SimCode code;
  for (const rt::Kernel &k : artifact.kernels) {
    auto f = host->lookupSymbol<LLVM::LLVMFuncOp>(k.name);
    auto info = f ? f->getAttrOfType<DictionaryAttr>(kSimKernelAttrName)
                  : DictionaryAttr();
    if (!info)
      return program.emitError() << "expects a cuda-sim kernel @" << k.name,
             failure();
    rt::SimKernel sk;
    sk.name = k.name;
    sk.params = uint32_t(intField(info, "params"));
    sk.sharedBytes = uint32_t(intField(info, "shared_bytes"));
    for (Attribute a : info.getAs<ArrayAttr>("shared")) {
      ArrayRef<int64_t> pair = cast<DenseI64ArrayAttr>(a).asArrayRef();
      sk.shared.push_back({uint32_t(pair[0]), uint32_t(pair[1])});
    }
    sk.usesSync = info.getAs<BoolAttr>("sync").getValue();
    code.kernels.push_back(std::move(sk));
  }
  // Sites name kernels in gpu.module order; the artifact's order may differ.
  SmallVector<uint32_t> kernelIndex;
  for (auto f : host->getOps<LLVM::LLVMFuncOp>())
    if (f->hasAttr(kSimKernelAttrName)) {
      auto it = llvm::find_if(artifact.kernels, [&](const rt::Kernel &k) {
        return k.name == f.getName();
      });
      if (it == artifact.kernels.end())
        return f.emitError() << "is a cuda-sim kernel the artifact does not "
                                "launch",
               failure();
      kernelIndex.push_back(uint32_t(it - artifact.kernels.begin()));
    }
  for (Attribute a : (*host)->getAttrOfType<ArrayAttr>(kSimSitesAttrName)) {
    auto d = cast<DictionaryAttr>(a);
    rt::SimSite s;
    int64_t k = intField(d, "kernel");
    if (k < 0 || size_t(k) >= kernelIndex.size())
      return program.emitError() << "expects cuda-sim sites of known kernels",
             failure();
    s.kernel = kernelIndex[size_t(k)];
    s.kind = rt::SimSiteKind(intField(d, "kind"));
    s.space = rt::SimSpace(intField(d, "space"));
    s.bytes = uint32_t(intField(d, "bytes"));
    s.align = uint32_t(intField(d, "align"));
    s.root = int32_t(intField(d, "root"));
    s.loc = d.getAs<StringAttr>("loc").getValue().str();
    code.sites.push_back(std::move(s));
  }
  (*host)->removeAttr(kSimSitesAttrName);
  FailureOr<std::string> object = emitSharedObject(*host);
  if (failed(object))
    return failure();
  code.object = std::move(*object);
  return code;
}
