"""Images rendered in-process by pygraphviz's bundled Graphviz, with no `dot` program on the PATH."""

import io
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tnt import TnTClassifier
from tnt.viz.export_dot import to_dot
from tnt.viz.render import render

SVG = "{http://www.w3.org/2000/svg}"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

HOSTILE_FEATURES = ['a"b', "x}y"]
HOSTILE_CLASSES = ["<script>alert(1)</script>", "back\\slash\nnew {line} &amp;"]


def svg_texts(svg: bytes) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter(f"{SVG}text")]


def svg_node_ids(svg: bytes) -> list[str]:
    root = ET.fromstring(svg)
    return [g.get("id") for g in root.iter(f"{SVG}g") if g.get("class") == "node"]


def decode_png(data: bytes):
    from PIL import Image

    Image.MAX_IMAGE_PIXELS = None
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


@pytest.mark.parametrize("fmt, magic", [("svg", b"<?xml"), ("png", PNG_MAGIC), ("pdf", b"%PDF-")])
def test_renders_every_format_without_dot_on_path(no_dot_on_path, toy_graph, fmt, magic):
    image = render(to_dot(toy_graph), fmt)
    assert image.startswith(magic)


def test_png_decodes(no_dot_on_path, toy_graph):
    image = decode_png(render(to_dot(toy_graph), "png"))
    assert image.size[0] > 100 and image.size[1] > 100


def test_hostile_names_render_to_parseable_svg_shown_literally(no_dot_on_path, toy_graph):
    source = to_dot(toy_graph, feature_names=HOSTILE_FEATURES, class_names=HOSTILE_CLASSES, show_shares=True)
    svg = render(source, "svg")
    texts = svg_texts(svg)  # ElementTree raises if the SVG is not well-formed XML
    root = ET.fromstring(svg)
    assert not [e for e in root.iter() if e.tag.endswith("script")]
    assert 'a"b <= 0.5' in texts and "x}y <= 1.5" in texts
    assert "<script>alert(1)</script>" in texts
    # A newline inside a name is a line break: its two halves are two lines of the label.
    assert "back\\slash" in texts and "new {line} &amp;" in texts


# Printable text from many scripts and symbol blocks (line breaks are tested above).
NAMES = st.text(
    alphabet=st.characters(min_codepoint=32, max_codepoint=0x2FFF, blacklist_categories=("Cs", "Cc", "Zl", "Zp")),
    min_size=1,
    max_size=12,
)


# The toy graph is only read, never changed, so sharing it between examples is safe.
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first=NAMES, second=NAMES)
def test_any_printable_class_name_is_shown_literally(toy_graph, first, second):
    source = to_dot(toy_graph, class_names=[first, second], show_samples=False)
    texts = [t.strip() for t in svg_texts(render(source, "svg"))]
    # Leaves 3 and 5 predict the first class, leaf 6 the second; Graphviz trims outer spaces.
    for name in (first, second):
        assert name.strip() in texts or not name.strip()


def test_every_node_once_in_svg(no_dot_on_path, toy_graph):
    ids = svg_node_ids(render(to_dot(toy_graph), "svg"))
    assert sorted(ids) == sorted(f"node{i}" for i in range(toy_graph.node_count))


def test_unreadable_dot_is_a_value_error():
    with pytest.raises(ValueError, match="could not be read"):
        render("digraph { a -> ", "svg")
    with pytest.raises(ValueError, match="fmt must be one of"):
        render("digraph { a }", "gif")


@pytest.fixture(scope="module")
def mnist_tnt(mnist_path):
    """A TnT of about 1,200 splits: MNIST's first 15,000 training images, C=1e-4, one grow pass per phase."""
    with np.load(mnist_path, allow_pickle=False) as data:
        X, y = data["X_train"][:15000], data["y_train"][:15000]
    return TnTClassifier(ccp_alpha=0.0, C=1e-4, N1=2, N2=1, random_state=0).fit(X, y)


@pytest.mark.slow
def test_mnist_tnt_of_a_thousand_splits_renders_each_node_once(no_dot_on_path, mnist_tnt):
    graph = mnist_tnt.graph_
    assert 1000 <= graph.n_splits <= 1500 and graph.shared_nodes.size > 0
    source = to_dot(graph, class_names=[str(c) for c in mnist_tnt.classes_])
    svg = render(source, "svg")
    ids = svg_node_ids(svg)
    assert len(ids) == graph.node_count
    assert sorted(ids) == sorted(f"node{i}" for i in range(graph.node_count))
    png = render(source, "png")
    assert png.startswith(PNG_MAGIC)
    assert decode_png(png).size[0] > 1000
