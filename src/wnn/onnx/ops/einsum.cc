// Einsum, decomposed: repeated labels within one operand become a diagonal (a gather on the
// flattened pair of axes), then every operand is transposed and reshaped onto one common label
// order (output labels first, summed labels after, size 1 where an operand lacks a label),
// multiplied with broadcasting and reduced over the summed labels. Two operands (the common
// case) contract through one batched matmul instead, so attention-style einsums never build
// the product over all labels; three or more take the general path.
#include <algorithm>
#include <map>

#include "wnn/onnx/registry.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;
using Labels = std::vector<int>;  // letters as chars; ellipsis dims as kEllipsis + i

constexpr int kEllipsis = 1000;

struct Term {
  OperandId x;
  Shape shape;
  Labels labels;
};

// Parses one operand's subscripts; `ellipsis_rank` dims stand for "..." (right-aligned among
// the `total_ellipsis` ellipsis dims of the whole equation).
Labels parse_term(ConvertContext& c, const std::string& s, size_t rank, size_t* ellipsis_rank) {
  Labels out;
  size_t letters = 0;
  for (char ch : s) letters += std::isalpha(static_cast<unsigned char>(ch)) ? 1 : 0;
  const size_t dots = s.find("...");
  if (dots == std::string::npos) {
    if (letters != rank) c.unsupported("Einsum term '{}' for an operand of rank {}", s, rank);
    *ellipsis_rank = 0;
  } else {
    check(letters <= rank, "Einsum term '{}' has more labels than rank {}", s, rank);
    *ellipsis_rank = rank - letters;
  }
  for (size_t i = 0; i < s.size(); ++i) {
    if (i == dots) {
      for (size_t e = 0; e < *ellipsis_rank; ++e) out.push_back(-1 - int(e));  // fixed up later
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(s[i]))) {
      out.push_back(s[i]);
    } else {
      c.unsupported("Einsum subscript character '{}' in '{}'", s[i], s);
    }
  }
  return out;
}

// Ellipsis placeholders -1-e of a term with `er` ellipsis dims, right-aligned among `total`.
void align_ellipsis(Labels& l, size_t er, size_t total) {
  for (int& v : l) {
    if (v < 0) v = kEllipsis + int(total - er) + (-1 - v);
  }
}

// Replaces two axes carrying the same label by their diagonal, appended as the last axis.
void take_diagonal(ConvertContext& c, Term& t, size_t p, size_t q) {
  const int64_t d = t.shape[p];
  check(t.shape[q] == d, "Einsum diagonal over dims of {} and {}", d, t.shape[q]);
  IntList perm;
  Labels labels;
  Shape shape;
  for (size_t i = 0; i < t.labels.size(); ++i) {
    if (i == p || i == q) continue;
    perm.push_back(int64_t(i));
    labels.push_back(t.labels[i]);
    shape.push_back(t.shape[i]);
  }
  perm.push_back(int64_t(p));
  perm.push_back(int64_t(q));
  OperandId x = c.op(K::kTranspose, {t.x}, {{"permutation", perm}});
  Shape flat = shape;
  flat.push_back(d * d);
  x = c.reshape(x, flat);
  std::vector<int64_t> diag(static_cast<size_t>(d));
  for (int64_t i = 0; i < d; ++i) diag[size_t(i)] = i * (d + 1);
  x = c.op(K::kGather, {x, c.constant(make_int64_tensor({d}, diag))},
           {{"axis", int64_t(shape.size())}});
  labels.push_back(t.labels[p]);
  shape.push_back(d);
  t = {x, shape, labels};
}

// The operand laid out on `order`: transposed to that order and reshaped with size-1 dims
// for the labels it lacks.
OperandId onto(ConvertContext& c, const Term& t, const Labels& order) {
  IntList perm;
  Shape shape;
  for (int l : order) {
    auto it = std::find(t.labels.begin(), t.labels.end(), l);
    if (it == t.labels.end()) {
      shape.push_back(1);
    } else {
      perm.push_back(int64_t(it - t.labels.begin()));
      shape.push_back(t.shape[size_t(it - t.labels.begin())]);
    }
  }
  OperandId x = t.x;
  if (perm != iota(0, int64_t(perm.size()))) {
    x = c.op(K::kTranspose, {x}, {{"permutation", perm}});
  }
  return shape == t.shape ? x : c.reshape(x, shape);
}

bool has(const Labels& l, int v) { return std::find(l.begin(), l.end(), v) != l.end(); }

// t transposed to `order` (a permutation of its labels) and expanded to every label's full size
// (ellipsis dims may be 1 on one side).
OperandId arranged(ConvertContext& c, const Term& t, const Labels& order,
                   std::map<int, int64_t>& size_of) {
  OperandId x = onto(c, t, order);
  Shape full;
  for (int l : order) full.push_back(size_of[l]);
  return c.b().graph().desc(x).shape == full ? x : c.op(K::kExpand, {x, RawValue(full)});
}

int64_t product(const Labels& ls, std::map<int, int64_t>& size_of) {
  int64_t p = 1;
  for (int l : ls) p *= size_of[l];
  return p;
}

// Two operands as one batched matmul, [batch, left, summed] x [batch, summed, right], so a
// contraction never materializes the product over all labels. Labels private to one operand
// and absent from the output are summed out first.
OperandId contract_pair(ConvertContext& c, Term a, Term b, const Labels& out,
                        std::map<int, int64_t>& size_of) {
  for (Term* t : {&a, &b}) {
    const Term& other = t == &a ? b : a;
    IntList axes;
    Term kept{t->x, {}, {}};
    for (size_t i = 0; i < t->labels.size(); ++i) {
      const int l = t->labels[i];
      if (!has(out, l) && !has(other.labels, l)) {
        axes.push_back(int64_t(i));
      } else {
        kept.labels.push_back(l);
        kept.shape.push_back(t->shape[i]);
      }
    }
    if (axes.empty()) continue;
    kept.x = c.op(K::kReduceSum, {t->x}, {{"axes", axes}, {"keepDimensions", false}});
    *t = kept;
  }
  Labels batch, left, summed, right;
  for (int l : a.labels) {
    if (has(b.labels, l)) {
      (has(out, l) ? batch : summed).push_back(l);
    } else {
      left.push_back(l);
    }
  }
  for (int l : b.labels) {
    if (!has(a.labels, l)) right.push_back(l);
  }
  auto cat = [](std::initializer_list<const Labels*> parts) {
    Labels r;
    for (const Labels* p : parts) r.insert(r.end(), p->begin(), p->end());
    return r;
  };
  const int64_t nb = product(batch, size_of), nl = product(left, size_of),
                ns = product(summed, size_of), nr = product(right, size_of);
  OperandId x = c.reshape(arranged(c, a, cat({&batch, &left, &summed}), size_of), {nb, nl, ns});
  OperandId y = c.reshape(arranged(c, b, cat({&batch, &summed, &right}), size_of), {nb, ns, nr});
  const Labels result = cat({&batch, &left, &right});
  Shape rs;
  for (int l : result) rs.push_back(size_of[l]);
  OperandId r = c.reshape(c.op(K::kMatmul, {x, y}), rs);
  IntList perm;
  for (int l : out)
    perm.push_back(int64_t(std::find(result.begin(), result.end(), l) - result.begin()));
  return perm == iota(0, int64_t(perm.size())) ? r
                                               : c.op(K::kTranspose, {r}, {{"permutation", perm}});
}

void einsum(ConvertContext& c) {
  std::string eq;
  for (char ch : c.attr_string("equation", "")) {
    if (ch != ' ') eq += ch;
  }
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  size_t inputs = 0;
  for (size_t i = 0; i < c.num_inputs(); ++i) inputs += c.has_input(i) ? 1 : 0;
  check(terms.size() == inputs, "Einsum '{}' has {} terms for {} inputs", eq, terms.size(), inputs);

  std::vector<Term> ts;
  std::vector<size_t> ers;
  size_t total_ellipsis = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    const Shape s = c.shape(i);
    size_t er = 0;
    Labels l = parse_term(c, terms[i], s.size(), &er);
    ts.push_back({c.in(i), s, l});
    ers.push_back(er);
    total_ellipsis = std::max(total_ellipsis, er);
  }
  std::map<int, int64_t> size_of;
  std::map<int, int> count;
  for (size_t i = 0; i < ts.size(); ++i) {
    align_ellipsis(ts[i].labels, ers[i], total_ellipsis);
    for (size_t a = 0; a < ts[i].labels.size(); ++a) {
      const int l = ts[i].labels[a];
      ++count[l];
      const int64_t d = ts[i].shape[a];
      if (!size_of.count(l) || size_of[l] == 1) size_of[l] = d;
      check(d == 1 || d == size_of[l], "Einsum label '{}' has sizes {} and {}", char(l), d,
            size_of[l]);
    }
  }

  Labels out;
  if (arrow != std::string::npos) {
    const std::string rhs = eq.substr(arrow + 2);
    for (size_t i = 0; i < rhs.size(); ++i) {
      if (rhs.compare(i, 3, "...") == 0) {
        for (size_t e = 0; e < total_ellipsis; ++e) out.push_back(kEllipsis + int(e));
        i += 2;
      } else {
        check(std::isalpha(static_cast<unsigned char>(rhs[i])) && count.count(rhs[i]),
              "Einsum output label '{}' is not an input label", rhs[i]);
        out.push_back(rhs[i]);
      }
    }
  } else {
    // Implicit output: the ellipsis dims, then labels used once, alphabetically.
    for (size_t e = 0; e < total_ellipsis; ++e) out.push_back(kEllipsis + int(e));
    for (auto [l, n] : count) {
      if (l < kEllipsis && n == 1) out.push_back(l);
    }
    std::sort(out.begin() + long(total_ellipsis), out.end());
  }

  for (Term& t : ts) {
    for (bool found = true; found;) {
      found = false;
      for (size_t p = 0; p < t.labels.size() && !found; ++p) {
        for (size_t q = p + 1; q < t.labels.size() && !found; ++q) {
          if (t.labels[p] == t.labels[q]) take_diagonal(c, t, p, q), found = true;
        }
      }
    }
  }

  if (ts.size() == 2) {
    return c.set(
        0, c.op(K::kIdentity, {contract_pair(c, ts[0], ts[1], out, size_of)}, {}, c.out_name(0)));
  }
  Labels order = out;
  for (const Term& t : ts) {
    for (int l : t.labels) {
      if (std::find(order.begin(), order.end(), l) == order.end()) order.push_back(l);
    }
  }
  OperandId acc = onto(c, ts[0], order);
  for (size_t i = 1; i < ts.size(); ++i) acc = c.op(K::kMul, {acc, onto(c, ts[i], order)});
  // Size-1 broadcasts of a label that no operand has at full size stay 1 here; expand the
  // output labels to their sizes so ellipsis broadcasting holds even for a single operand.
  Shape full;
  for (int l : order) full.push_back(size_of[l]);
  if (c.b().graph().desc(acc).shape != full) acc = c.op(K::kExpand, {acc, RawValue(full)});
  if (order.size() > out.size()) {
    acc = c.op(
        K::kReduceSum, {acc},
        {{"axes", iota(int64_t(out.size()), int64_t(order.size()))}, {"keepDimensions", false}});
  }
  c.set(0, c.op(K::kIdentity, {acc}, {}, c.out_name(0)));
}

}  // namespace

void register_einsum(std::vector<Converter>& t) {
  t.push_back({"", "Einsum", 12, kMaxOpset, einsum, ConvertKind::kDecomposed, true});
}

}  // namespace wnn::onnx::ops
