// The layered layout: every box placed, no overlaps, edges routed between layers and never
// through a box, crossings reduced, and the same numbers on every run.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "wnn/core/error.h"
#include "wnn/view/layout.h"

namespace wnn::view {
namespace {

struct Rect {
  int x0, y0, x1, y1;
};

// A random DAG: each box reads one to three earlier boxes, some from far above (long edges),
// with varied sizes, label zones and output ports.
struct RandomDag {
  std::vector<LayoutBox> boxes;
  std::vector<LayoutEdge> edges;
};

RandomDag random_dag(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  RandomDag d;
  for (size_t i = 0; i < n; ++i) {
    LayoutBox b;
    b.width = 2 * int(20 + rng() % 60);
    b.height = int(20 + rng() % 50);
    b.out_ports = 1 + int(rng() % 6 == 0);
    b.label_height = int(rng() % 3) * 12;
    b.extra_right = int(rng() % 4) * 15;
    d.boxes.push_back(b);
    if (i == 0 || rng() % 10 == 0) continue;  // a source
    const size_t reads = 1 + rng() % 3;
    for (size_t r = 0; r < reads; ++r) {
      const size_t back =
          rng() % 5 == 0 ? 1 + rng() % std::min<size_t>(i, 40) : 1 + rng() % std::min<size_t>(i, 3);
      const uint32_t from = uint32_t(i - back);
      d.edges.push_back({from, uint32_t(rng() % size_t(d.boxes[from].out_ports)), uint32_t(i)});
    }
  }
  return d;
}

Rect box_rect(const Layout& l, const std::vector<LayoutBox>& boxes, size_t b) {
  const auto& p = l.boxes[b];
  return {p.x, p.y, p.x + boxes[b].width, p.y + boxes[b].height};
}

// The box with its label zone and the room its labels take on the right.
Rect footprint(const Layout& l, const std::vector<LayoutBox>& boxes, size_t b) {
  const auto& p = l.boxes[b];
  return {p.x, p.y, p.x + boxes[b].width + boxes[b].extra_right,
          p.y + boxes[b].height + boxes[b].label_height};
}

bool interiors_overlap(const Rect& a, const Rect& b) {
  return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

// Whether the segment's bounding box (which also holds any curve drawn between its ends with
// vertical tangents) enters the inside of the rectangle.
bool segment_enters(const Point& a, const Point& b, const Rect& r) {
  const int x0 = std::min(a.x, b.x), x1 = std::max(a.x, b.x);
  const int y0 = std::min(a.y, b.y), y1 = std::max(a.y, b.y);
  return x0 < r.x1 && x1 > r.x0 && y0 < r.y1 && y1 > r.y0;
}

void expect_valid(const RandomDag& d, const Layout& l) {
  ASSERT_EQ(l.boxes.size(), d.boxes.size());
  ASSERT_EQ(l.edges.size(), d.edges.size());
  for (size_t a = 0; a < d.boxes.size(); ++a) {
    const Rect ra = footprint(l, d.boxes, a);
    EXPECT_GE(ra.x0, 0);
    EXPECT_GE(ra.y0, 0);
    EXPECT_LE(ra.x1, l.width);
    EXPECT_LE(ra.y1, l.height);
    for (size_t b = a + 1; b < d.boxes.size(); ++b) {
      ASSERT_FALSE(interiors_overlap(ra, footprint(l, d.boxes, b)))
          << "boxes " << a << " and " << b << " overlap";
    }
  }
  for (size_t i = 0; i < d.edges.size(); ++i) {
    const auto& e = d.edges[i];
    const auto& pts = l.edges[i].points;
    ASSERT_GE(pts.size(), 2u);
    EXPECT_LT(l.boxes[e.from].layer, l.boxes[e.to].layer) << "edge " << i << " does not go down";
    const Rect src = box_rect(l, d.boxes, e.from), dst = box_rect(l, d.boxes, e.to);
    EXPECT_EQ(pts.front().y, src.y1);
    EXPECT_EQ(pts.front().x, out_port_x(d.boxes[e.from], src.x0, int(e.from_port)));
    EXPECT_EQ(pts.back().y, dst.y0);
    EXPECT_GT(pts.back().x, dst.x0);
    EXPECT_LT(pts.back().x, dst.x1);
    for (size_t k = 0; k + 1 < pts.size(); ++k) {
      EXPECT_LT(pts[k].y, pts[k + 1].y) << "edge " << i << " goes up or sideways";
      for (size_t b = 0; b < d.boxes.size(); ++b) {
        ASSERT_FALSE(segment_enters(pts[k], pts[k + 1], box_rect(l, d.boxes, b)))
            << "edge " << i << " segment " << k << " passes through box " << b;
        // Labels sit below boxes, right of the ports: no other box's edge may cross them.
        const Rect zone{box_rect(l, d.boxes, b).x0, box_rect(l, d.boxes, b).y1,
                        footprint(l, d.boxes, b).x1, footprint(l, d.boxes, b).y1};
        if (b != e.from) {
          ASSERT_FALSE(segment_enters(pts[k], pts[k + 1], zone))
              << "edge " << i << " segment " << k << " passes through the labels of box " << b;
        }
      }
    }
  }
}

TEST(Layout, PlacesEveryBoxWithoutOverlapAndRoutesAroundBoxes) {
  for (uint32_t seed : {1u, 2u, 3u, 17u}) {
    const RandomDag d = random_dag(120, seed);
    const Layout l = layout_graph(d.boxes, d.edges);
    SCOPED_TRACE(seed);
    expect_valid(d, l);
    EXPECT_GT(l.dummies, 0u);  // the long edges ran through dummies
  }
}

TEST(Layout, SameInputGivesTheSameNumbers) {
  const RandomDag d = random_dag(300, 5);
  const Layout a = layout_graph(d.boxes, d.edges);
  const Layout b = layout_graph(d.boxes, d.edges);
  ASSERT_EQ(a.boxes.size(), b.boxes.size());
  for (size_t i = 0; i < a.boxes.size(); ++i) {
    EXPECT_EQ(a.boxes[i].x, b.boxes[i].x);
    EXPECT_EQ(a.boxes[i].y, b.boxes[i].y);
  }
  for (size_t i = 0; i < a.edges.size(); ++i) EXPECT_EQ(a.edges[i].points, b.edges[i].points);
  EXPECT_EQ(a.width, b.width);
  EXPECT_EQ(a.height, b.height);
}

TEST(Layout, UntanglesATwistedPair) {
  // s0 -> t1 and s1 -> t0, the targets listed in the order that crosses: the ordering must
  // swap them.
  std::vector<LayoutBox> boxes(4, LayoutBox{40, 20});
  const std::vector<LayoutEdge> edges = {{0, 0, 3}, {1, 0, 2}};
  const Layout l = layout_graph(boxes, edges);
  EXPECT_EQ(l.crossings, 0u);
  EXPECT_EQ(l.boxes[0].x < l.boxes[1].x, l.boxes[3].x < l.boxes[2].x);
}

TEST(Layout, AChainIsOneStraightColumn) {
  std::vector<LayoutBox> boxes(5, LayoutBox{60, 24});
  std::vector<LayoutEdge> edges;
  for (uint32_t i = 0; i + 1 < 5; ++i) edges.push_back({i, 0, i + 1});
  const Layout l = layout_graph(boxes, edges);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(l.boxes[i].layer, int(i));
    EXPECT_EQ(l.boxes[i].x, l.boxes[0].x);
  }
  for (const auto& e : l.edges) {
    for (const auto& p : e.points) EXPECT_EQ(p.x, l.boxes[0].x + 30);
  }
}

TEST(Layout, AGraphInputSitsJustAboveItsFirstReader) {
  // box 3 is a source read only by box 2 (layer 2): it moves down to layer 1, not layer 0.
  std::vector<LayoutBox> boxes(4, LayoutBox{40, 20});
  const std::vector<LayoutEdge> edges = {{0, 0, 1}, {1, 0, 2}, {3, 0, 2}};
  const Layout l = layout_graph(boxes, edges);
  EXPECT_EQ(l.boxes[3].layer, 1);
  EXPECT_EQ(l.dummies, 0u);
}

TEST(Layout, EdgesOfOneNetShareTheirDummies) {
  // One output read at layers 1, 3 and 5: one chain of dummies (layers 1 to 4), not three.
  std::vector<LayoutBox> boxes(6, LayoutBox{40, 20});
  std::vector<LayoutEdge> edges;
  for (uint32_t i = 1; i < 6; ++i) edges.push_back({i - 1, 0, i});  // the spine: layers 0..5
  edges.push_back({0, 0, 3});
  edges.push_back({0, 0, 5});
  const Layout l = layout_graph(boxes, edges);
  EXPECT_EQ(l.boxes[5].layer, 5);
  EXPECT_EQ(l.dummies, 4u);  // layers 1..4 for box 0's net
}

TEST(Layout, RejectsACycle) {
  std::vector<LayoutBox> boxes(3, LayoutBox{40, 20});
  const std::vector<LayoutEdge> edges = {{0, 0, 1}, {1, 0, 2}, {2, 0, 1}};
  EXPECT_THROW(layout_graph(boxes, edges), Error);
}

TEST(Layout, LaysOutTwoThousandBoxes) {
  const RandomDag d = random_dag(2000, 11);
  const Layout l = layout_graph(d.boxes, d.edges);
  ASSERT_EQ(l.boxes.size(), 2000u);
  // The full pairwise checks of expect_valid are quadratic; per layer is enough here.
  std::map<int, std::vector<size_t>> by_layer;
  for (size_t b = 0; b < l.boxes.size(); ++b) by_layer[l.boxes[b].layer].push_back(b);
  for (auto& [layer, members] : by_layer) {
    std::sort(members.begin(), members.end(),
              [&](size_t a, size_t b) { return l.boxes[a].x < l.boxes[b].x; });
    for (size_t i = 1; i < members.size(); ++i) {
      EXPECT_LE(footprint(l, d.boxes, members[i - 1]).x1, l.boxes[members[i]].x);
    }
  }
}

}  // namespace
}  // namespace wnn::view
