//===- SharedObject.cpp - Kernels in the LLVM dialect to a .so ------------===//
//
// The CPU code object of an artifact: every kernel, compiled by LLVM for
// the host, behind one uniform entry point per kernel so the runtime calls
// them all the same way, and linked into a shared object that the runtime
// dlopens. The runtime therefore needs neither MLIR nor LLVM.
//
//===----------------------------------------------------------------------===//
#include "bwc/Target/CPU/SharedObject.h"
#include "bwc/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/IPO/MergeFunctions.h"

using namespace mlir;
using namespace mlir::bwc;

LogicalResult mlir::bwc::addPackedEntryPoints(ModuleOp module) {
  OpBuilder b(module.getContext());
  auto ptr = LLVM::LLVMPointerType::get(module.getContext());
  SmallVector<LLVM::LLVMFuncOp> kernels;
  for (auto f : module.getOps<LLVM::LLVMFuncOp>())
    if (f->hasAttr(kKernelAttrName))
      kernels.push_back(f);
  for (LLVM::LLVMFuncOp kernel : kernels) {
    auto type = kernel.getFunctionType();
    for (Type t : type.getParams())
      if (!isa<LLVM::LLVMPointerType>(t))
        return kernel.emitError()
               << "expects a kernel taking bare buffer pointers but got " << t;
    kernel.setLinkage(LLVM::Linkage::Internal);
    kernel->removeAttr("sym_visibility");
    b.setInsertionPointAfter(kernel);
    Location loc = kernel.getLoc();
    auto entry = LLVM::LLVMFuncOp::create(
        b, loc, (kernel.getName() + kPackedSuffix).str(),
        LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(b.getContext()),
                                    {ptr}));
    Block *body = entry.addEntryBlock(b);
    b.setInsertionPointToStart(body);
    SmallVector<Value> args;
    for (unsigned i = 0; i < type.getNumParams(); ++i) {
      Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, body->getArgument(0),
                                       ArrayRef<LLVM::GEPArg>{(int32_t)i});
      args.push_back(LLVM::LoadOp::create(b, loc, ptr, slot));
    }
    LLVM::CallOp::create(b, loc, kernel, args);
    LLVM::ReturnOp::create(b, loc, ValueRange{});
  }
  return success();
}

namespace {

/// A file in a fresh temporary directory, removed with it.
struct TempDir {
  SmallString<128> path;
  TempDir() { (void)llvm::sys::fs::createUniqueDirectory("bwc-cpu", path); }
  ~TempDir() { (void)llvm::sys::fs::remove_directories(path); }
  std::string file(StringRef name) const { return (path + "/" + name).str(); }
};

} // namespace

FailureOr<std::string> mlir::bwc::emitSharedObject(ModuleOp module) {
  auto fail = [&](const Twine &msg) -> FailureOr<std::string> {
    module.emitError() << msg;
    return failure();
  };
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "bwc_kernels");
  if (!llvmModule)
    return fail("cannot translate the kernels to LLVM IR");

  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return fail("cannot target the host: " + toString(builder.takeError()));
  // A generic CPU: the artifact may run on another machine of the same
  // architecture (the GPU machine's host, CI).
  builder->setCPU("generic");
  builder->getFeatures() = llvm::SubtargetFeatures();
  builder->setRelocationModel(llvm::Reloc::PIC_);
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Default);
  auto machine = builder->createTargetMachine();
  if (!machine)
    return fail("cannot create the host target machine: " +
                toString(machine.takeError()));
  llvmModule->setDataLayout((*machine)->createDataLayout());
  llvmModule->setTargetTriple((*machine)->getTargetTriple());
  // Kernels with one body (a network repeats its blocks, a training step
  // its rules) are optimized and compiled once: LLVM's MergeFunctions
  // makes each duplicate a tail call of the kept one under its own name,
  // which the runtime looks up. The entry points are marked noinline so
  // that the optimizer does not copy the kept body back into those calls
  // (nothing else calls an entry point; each still inlines its kernel).
  for (llvm::Function &f : *llvmModule)
    if (!f.isDeclaration() && f.hasExternalLinkage() && f.use_empty())
      f.addFnAttr(llvm::Attribute::NoInline);
  llvm::MergeFunctionsPass::runOnModule(*llvmModule);
  if (llvm::Error err = makeOptimizingTransformer(
          /*optLevel=*/2, /*sizeLevel=*/0, machine->get())(llvmModule.get()))
    return fail("LLVM optimization failed: " + toString(std::move(err)));

  TempDir dir;
  if (dir.path.empty())
    return fail("cannot create a temporary directory");
  std::string object = dir.file("kernels.o"), shared = dir.file("kernels.so");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(object, ec, llvm::sys::fs::OF_None);
    if (ec)
      return fail("cannot write " + object + ": " + ec.message());
    llvm::legacy::PassManager pm;
    if ((*machine)->addPassesToEmitFile(pm, os, nullptr,
                                        llvm::CodeGenFileType::ObjectFile))
      return fail("the host target cannot emit object files");
    pm.run(*llvmModule);
  }
  auto cc = llvm::sys::findProgramByName("cc");
  if (!cc)
    return fail("no C compiler ('cc') found to link the kernels into a "
                "shared object: install gcc");
  std::string errMsg;
  int rc = llvm::sys::ExecuteAndWait(
      *cc, {*cc, "-shared", "-o", shared, object, "-lm"}, std::nullopt, {}, 0,
      0, &errMsg);
  if (rc != 0)
    return fail("linking the kernels failed (" + *cc + " exit " +
                Twine(rc) + ") " + errMsg);
  auto bytes = llvm::MemoryBuffer::getFile(shared, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
  if (!bytes)
    return fail("cannot read " + shared);
  return (*bytes)->getBuffer().str();
}
