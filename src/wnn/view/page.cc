#include "wnn/view/page.h"

#include <fmt/format.h>

#include "wnn/core/xml_escape.h"
#include "wnn/view/assets.h"
#include "wnn/view/page_data.h"

namespace wnn::view {

namespace {

// JSON inside <script>: '<' written as \u003c, so no "</script>" or "<!--" can occur in it.
std::string script_json(const ordered_json& j) {
  const std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

// Vertical runs as lines, gap crossings as curves with vertical tangents at both ends (they stay
// inside the segment's bounding box, which the layout keeps free of boxes).
std::string path_data(const std::vector<Point>& pts) {
  std::string d = fmt::format("M{} {}", pts[0].x, pts[0].y);
  for (size_t i = 1; i < pts.size(); ++i) {
    const Point& a = pts[i - 1];
    const Point& b = pts[i];
    if (a.x == b.x) {
      d += fmt::format("V{}", b.y);
    } else {
      const int mid = (a.y + b.y) / 2;
      d += fmt::format("C{} {} {} {} {} {}", a.x, mid, b.x, mid, b.x, b.y);
    }
  }
  return d;
}

std::string classes_of(const std::vector<Overlay>& overlays, uint32_t node) {
  std::string c;
  for (const Overlay& o : overlays) {
    if (o.nodes[node] && !o.nodes[node]->css_class.empty()) c += " " + o.nodes[node]->css_class;
  }
  return c;
}

std::string output_classes(const std::vector<Overlay>& overlays, size_t output) {
  std::string c;
  for (const Overlay& o : overlays) {
    if (output < o.outputs.size() && o.outputs[output]) c += " " + o.outputs[output]->css_class;
  }
  return c;
}

void write_section(std::string& svg, const PageInput& in, const SceneBox& box, const Section& s) {
  svg += fmt::format(R"~(<g class="node{}" id="n{}" data-n="{}" transform="translate(0,{})">)~",
                     classes_of(in.overlays, s.node), s.node, s.node, s.y);
  svg += fmt::format(R"~(<rect width="{}" height="{}" rx="4"/>)~", box.width, s.height);
  svg += fmt::format(R"~(<text class="t" x="{}" y="{}">{}</text>)~", kPadding, kTitleHeight - 3,
                     xml_escape(s.title));
  for (size_t r = 0; r < s.constants.size(); ++r) {
    svg += fmt::format(R"~(<text class="c" x="{}" y="{}">{}</text>)~", kPadding,
                       kTitleHeight + kRowHeight * int(r + 1) - 2, xml_escape(s.constants[r].text));
  }
  svg += "</g>";
}

std::string draw_svg(const PageInput& in) {
  const Scene& scene = *in.scene;
  std::string svg =
      fmt::format(R"~(<svg id="graph" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {}" )~"
                  R"~(data-width="{}" data-height="{}">)~",
                  scene.width, scene.height, scene.width, scene.height);
  svg += R"~(<defs><marker id="arrow" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="7" )~"
         R"~(markerHeight="7" orient="auto"><path d="M0 0L8 4L0 8z"/></marker></defs>)~";
  // Box element ids: graph inputs i<k>, outputs o<k>, operator sections n<node>.
  std::vector<std::string> box_id(scene.boxes.size());
  size_t inputs = 0, outputs = 0;
  for (size_t b = 0; b < scene.boxes.size(); ++b) {
    const SceneBox& box = scene.boxes[b];
    box_id[b] = box.kind == BoxKind::kInput    ? fmt::format("i{}", inputs++)
                : box.kind == BoxKind::kOutput ? fmt::format("o{}", outputs++)
                                               : fmt::format("n{}", box.sections[0].node);
  }
  svg += R"~(<g id="edges">)~";
  for (size_t e = 0; e < scene.edges.size(); ++e) {
    const SceneEdge& edge = scene.edges[e];
    const SceneBox& from = scene.boxes[edge.from_box];
    const std::string from_id = from.kind == BoxKind::kNodes
                                    ? fmt::format("n{}", from.sections.back().node)
                                    : box_id[edge.from_box];
    svg += fmt::format(R"~(<path class="edge" id="e{}" data-from="{}" data-to="{}" d="{}"/>)~", e,
                       from_id, box_id[edge.to_box], path_data(edge.points));
  }
  for (const InnerEdge& ie : scene.inner_edges) {
    svg += fmt::format(R"~(<path class="edge inner" d="M{} {}V{}"/>)~", ie.x, ie.y0, ie.y1);
  }
  svg += R"~(</g><g id="labels">)~";
  for (const EdgeLabel& l : scene.labels) {
    svg += fmt::format(R"~(<text class="elabel" x="{}" y="{}">{}</text>)~", l.x, l.y,
                       xml_escape(l.text));
  }
  for (const InnerEdge& ie : scene.inner_edges) {
    svg += fmt::format(R"~(<text class="elabel" x="{}" y="{}">{}</text>)~", ie.x + 6, ie.y1 - 4,
                       xml_escape(ie.label));
  }
  svg += R"~(</g><g id="boxes">)~";
  for (size_t b = 0; b < scene.boxes.size(); ++b) {
    const SceneBox& box = scene.boxes[b];
    if (box.kind != BoxKind::kNodes) {
      const bool input = box.kind == BoxKind::kInput;
      const size_t k = std::stoul(box_id[b].substr(1));
      svg +=
          fmt::format(R"~(<g class="io {}{}" id="{}" data-{}="{}" transform="translate({},{})">)~",
                      input ? "input" : "output", input ? "" : output_classes(in.overlays, k),
                      box_id[b], input ? "i" : "o", k, box.x, box.y);
      svg += fmt::format(R"~(<rect width="{}" height="{}" rx="{}"/>)~", box.width, box.height,
                         box.height / 2);
      svg += fmt::format(R"~(<text class="t" x="{}" y="{}">{}</text></g>)~", box.width / 2,
                         box.height / 2 + 4, xml_escape(box.title));
      continue;
    }
    const bool chain = box.sections.size() > 1;
    svg += fmt::format(R"~(<g class="box{}" transform="translate({},{})">)~", chain ? " chain" : "",
                       box.x, box.y);
    if (chain) {
      svg += fmt::format(R"~(<rect class="outline" x="-2" y="-2" width="{}" height="{}" rx="5"/>)~",
                         box.width + 4, box.height + 4);
    }
    for (const Section& s : box.sections) write_section(svg, in, box, s);
    svg += "</g>";
  }
  svg += "</g></svg>";
  return svg;
}

}  // namespace

std::string render_page(const PageInput& in) {
  std::string page = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  page += "<meta name=\"viewport\" content=\"width=device-width\">";
  page += fmt::format("<title>wnn view: {}</title>", xml_escape(in.title));
  page += "<style>";
  page += assets::k_view_css;
  page += "</style></head>\n<body>";
  page += fmt::format(
      R"~(<header id="bar"><b>wnn view</b><span id="file">{}</span>)~"
      R"~(<input id="search" type="search" placeholder="search names, ops (Enter: next)">)~"
      R"~(<span id="hits"></span><select id="mode"></select><button id="fit">fit</button>)~"
      R"~(</header>)~",
      xml_escape(in.title));
  page += R"~(<main><div id="stage">)~";
  page += draw_svg(in);
  page +=
      R"~(</div><aside id="panel"><div id="legend"></div><div id="details"></div></aside></main>)~";
  page += "\n<script type=\"application/json\" id=\"wnn-data\">";
  page += script_json(detail::page_data(in));
  page += "</script>\n<script>";
  page += assets::k_view_js;
  page += "</script></body></html>\n";
  return page;
}

}  // namespace wnn::view
