"""networkx export: one node per graph node, attributes for rules, counts and branches."""

import networkx as nx

from tnt.viz.colors import MIXED_COLOR
from tnt.viz.export_networkx import to_networkx


def test_nodes_and_edges_mirror_the_graph(toy_graph):
    g = to_networkx(toy_graph, feature_names=["w", "l"], class_names=["setosa", "other"])
    assert sorted(g.nodes) == list(range(toy_graph.node_count))
    assert g.number_of_edges() == 2 * toy_graph.n_splits
    assert nx.is_directed_acyclic_graph(g)
    assert [g.in_degree(n) for n in g.nodes] == toy_graph.n_parents.tolist()


def test_node_attributes(toy_graph):
    g = to_networkx(toy_graph, feature_names=["w", "l"], class_names=["setosa", "other"])
    root, mixed, leaf = g.nodes[0], g.nodes[4], g.nodes[6]
    assert root["rule"] == "w <= 0.5" and root["feature"] == 0 and root["threshold"] == 0.5
    assert root["n_samples"] == 10 and root["value"] == [6.0, 4.0] and root["dominant_class"] == "setosa"
    assert mixed["dominant_class"] is None and mixed["color"] == MIXED_COLOR and mixed["n_parents"] == 2
    assert leaf["is_leaf"] and leaf["feature"] is None and leaf["rule"] == "other"
    assert leaf["predicted_class"] == "other" and leaf["depth"] == 3


def test_edge_attributes(toy_graph):
    g = to_networkx(toy_graph, feature_names=["w", "l"])
    assert g.edges[2, 4] == {"branch": "left", "condition": "l <= 2.5"}
    assert g.edges[2, 6] == {"branch": "right", "condition": "l > 2.5"}
