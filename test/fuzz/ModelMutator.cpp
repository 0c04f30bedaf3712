//===- ModelMutator.cpp - Structure-aware mutations of ONNX models --------===//

#include "ModelMutator.h"

#include <cstdint>
#include <iterator>
#include <limits>
#include <vector>

using namespace onnx;

namespace {

/// Values that break arithmetic: signs, zero, one past a small shape, and
/// sizes whose products overflow.
const int64_t kExtremes[] = {-1, 0, 1, 2, 3, 7, -1000000, 1LL << 31,
                             1LL << 40, INT64_MAX, INT64_MIN};

/// Op types bwc imports, for swapping one node's type for another's.
const char *const kOpTypes[] = {
    "Add",      "Mul",        "MatMul",      "Gemm",       "Conv",
    "Relu",     "Softmax",    "Transpose",   "Reshape",    "Concat",
    "Slice",    "Gather",     "ReduceMean",  "MaxPool",    "Resize",
    "Cast",     "Expand",     "Where",       "Pad",        "Split",
    "Squeeze",  "Unsqueeze",  "LayerNormalization",        "Einsum",
    "TopK",     "CumSum",     "ScatterND",   "If",         "Loop",
    "LSTM",     "DequantizeLinear",          "BatchNormalization",
    "Identity", "ConvTranspose"};

struct Mutator {
  std::mt19937_64 &rng;

  size_t below(size_t n) {
    return n == 0 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(rng);
  }
  int64_t extreme() { return kExtremes[below(std::size(kExtremes))]; }

  template <typename Repeated> void dropAt(Repeated *r) {
    if (r->size() == 0)
      return;
    int i = below(r->size());
    r->SwapElements(i, r->size() - 1);
    r->RemoveLast();
  }

  /// Every graph of the model: the main one and, recursively, the bodies of
  /// If/Loop/Scan attributes.
  void graphs(GraphProto *g, std::vector<GraphProto *> &out) {
    out.push_back(g);
    for (NodeProto &n : *g->mutable_node())
      for (AttributeProto &a : *n.mutable_attribute()) {
        if (a.has_g())
          graphs(a.mutable_g(), out);
        for (GraphProto &sub : *a.mutable_graphs())
          graphs(&sub, out);
      }
  }

  /// The names a node input may refer to in `g`.
  std::vector<std::string> valueNames(const GraphProto &g) {
    std::vector<std::string> names = {""};
    for (const ValueInfoProto &v : g.input())
      names.push_back(v.name());
    for (const TensorProto &t : g.initializer())
      names.push_back(t.name());
    for (const NodeProto &n : g.node())
      for (const std::string &o : n.output())
        names.push_back(o);
    return names;
  }

  TensorShapeProto *someShape(GraphProto *g) {
    std::vector<ValueInfoProto *> values;
    for (auto *list : {g->mutable_input(), g->mutable_output(),
                       g->mutable_value_info()})
      for (ValueInfoProto &v : *list)
        if (v.type().has_tensor_type())
          values.push_back(&v);
    if (values.empty())
      return nullptr;
    return values[below(values.size())]
        ->mutable_type()
        ->mutable_tensor_type()
        ->mutable_shape();
  }

  void mutate(ModelProto &model, std::string &kind) {
    std::vector<GraphProto *> all;
    graphs(model.mutable_graph(), all);
    GraphProto *g = all[below(all.size())];
    NodeProto *node =
        g->node_size() ? g->mutable_node(below(g->node_size())) : nullptr;
    switch (below(16)) {
    case 0:
      kind = "drop-node";
      dropAt(g->mutable_node());
      break;
    case 1:
      kind = "duplicate-node";
      if (node)
        *g->add_node() = *node;
      break;
    case 2:
      kind = "swap-nodes";
      if (g->node_size() > 1)
        g->mutable_node()->SwapElements(below(g->node_size()),
                                        below(g->node_size()));
      break;
    case 3: {
      kind = "rewire-input";
      if (!node || !node->input_size())
        break;
      std::vector<std::string> names = valueNames(*g);
      node->set_input(below(node->input_size()), names[below(names.size())]);
      break;
    }
    case 4:
      kind = "drop-input";
      if (node)
        dropAt(node->mutable_input());
      break;
    case 5:
      kind = "op-type";
      if (node)
        node->set_op_type(kOpTypes[below(std::size(kOpTypes))]);
      break;
    case 6:
      kind = "drop-attribute";
      if (node)
        dropAt(node->mutable_attribute());
      break;
    case 7: {
      kind = "attribute-value";
      if (!node || !node->attribute_size())
        break;
      AttributeProto *a = node->mutable_attribute(below(node->attribute_size()));
      a->set_i(extreme());
      for (int i = 0; i < a->ints_size(); ++i)
        if (below(2))
          a->set_ints(i, extreme());
      if (below(3) == 0)
        a->add_ints(extreme());
      if (below(3) == 0 && a->ints_size())
        a->mutable_ints()->RemoveLast();
      static const float floats[] = {0.f, -1.f, 1e30f, -1e-30f,
                                     std::numeric_limits<float>::infinity(),
                                     std::numeric_limits<float>::quiet_NaN()};
      a->set_f(floats[below(std::size(floats))]);
      if (below(4) == 0)
        a->set_s(below(2) ? "" : "no-such-mode");
      break;
    }
    case 8: {
      kind = "attribute-type";
      if (!node || !node->attribute_size())
        break;
      AttributeProto *a = node->mutable_attribute(below(node->attribute_size()));
      a->set_type(static_cast<AttributeProto::AttributeType>(below(15)));
      break;
    }
    case 9: {
      kind = "input-dims";
      TensorShapeProto *shape = someShape(g);
      if (!shape)
        break;
      if (below(4) == 0) {
        shape->add_dim()->set_dim_value(below(5));
      } else if (below(4) == 0 && shape->dim_size()) {
        shape->mutable_dim()->RemoveLast();
      } else if (shape->dim_size()) {
        auto *d = shape->mutable_dim(below(shape->dim_size()));
        if (below(3) == 0)
          d->set_dim_param("n");
        else
          d->set_dim_value(below(2) ? (int64_t)below(9) : extreme());
      }
      break;
    }
    case 10: {
      kind = "elem-type";
      std::vector<ValueInfoProto *> values;
      for (auto *list : {g->mutable_input(), g->mutable_output()})
        for (ValueInfoProto &v : *list)
          if (v.type().has_tensor_type())
            values.push_back(&v);
      if (!values.empty() && (below(2) || !g->initializer_size()))
        values[below(values.size())]
            ->mutable_type()
            ->mutable_tensor_type()
            ->set_elem_type(below(21));
      else if (g->initializer_size())
        g->mutable_initializer(below(g->initializer_size()))
            ->set_data_type(below(21));
      break;
    }
    case 11: {
      kind = "initializer-dims";
      if (!g->initializer_size())
        break;
      TensorProto *t = g->mutable_initializer(below(g->initializer_size()));
      if (t->dims_size() && below(3))
        t->set_dims(below(t->dims_size()), extreme());
      else
        t->add_dims(below(2) ? 2 : extreme());
      break;
    }
    case 12: {
      kind = "initializer-bytes";
      if (!g->initializer_size())
        break;
      TensorProto *t = g->mutable_initializer(below(g->initializer_size()));
      if (t->has_raw_data() && !t->raw_data().empty())
        t->mutable_raw_data()->resize(below(t->raw_data().size()));
      else if (t->float_data_size())
        t->mutable_float_data()->RemoveLast();
      else if (t->int64_data_size())
        t->mutable_int64_data()->RemoveLast();
      else
        t->add_float_data(1.f);
      break;
    }
    case 13:
      kind = "drop-initializer";
      dropAt(g->mutable_initializer());
      break;
    case 14: {
      kind = "opset";
      if (!model.opset_import_size())
        model.add_opset_import()->set_version(1);
      OperatorSetIdProto *o =
          model.mutable_opset_import(below(model.opset_import_size()));
      static const int64_t versions[] = {1, 6, 7, 9, 11, 13, 17, 18, 21, 99};
      o->set_version(versions[below(std::size(versions))]);
      break;
    }
    default: {
      kind = "external-data";
      if (!g->initializer_size())
        break;
      TensorProto *t = g->mutable_initializer(below(g->initializer_size()));
      t->clear_raw_data();
      t->set_data_location(TensorProto::EXTERNAL);
      t->clear_external_data();
      static const char *const locations[] = {"w.bin", "missing.bin",
                                              "../w.bin", "/etc/passwd"};
      auto *loc = t->add_external_data();
      loc->set_key("location");
      loc->set_value(locations[below(std::size(locations))]);
      if (below(2)) {
        auto *off = t->add_external_data();
        off->set_key("offset");
        off->set_value(std::to_string(below(2) ? below(64) * 4 : 1u << 20));
      }
      break;
    }
    }
  }
};

} // namespace

void mlir::bwc::fuzz::mutateModel(ModelProto &model, std::mt19937_64 &rng,
                            std::string &kind) {
  Mutator{rng}.mutate(model, kind);
}
