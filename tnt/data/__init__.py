"""Data input: the bundled data sets (:mod:`tnt.data.datasets`, files in ``bundled/``), the one CSV
loader for uploads and the command line (:mod:`tnt.data.csv_loader`) and formula-safe CSV output
(:mod:`tnt.data.safe_csv`)."""
