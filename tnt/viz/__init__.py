"""Drawing and export of decision graphs: one exporter core (:mod:`tnt.viz.exporter`) for DOT, text,
networkx and plotly, the layered layout, colours, rendering to SVG/PNG/PDF, the analysis figures
and the text of a node's rule and of a sample's path."""
