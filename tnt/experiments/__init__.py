"""The paper's experiments on top of the estimators: its tables and figures (``paper``,
``paper_report``, ``paper_numbers``), sweeps over C, ensembles, decision-path lengths and the
corners toy problem with the Teach page's gallery of two-feature problems."""
