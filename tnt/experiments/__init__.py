"""The paper's experiments on top of the estimators: training with a same-splits CART beside it,
model comparisons, sweeps over C, ensembles, decision-path lengths, the corners toy problem and
step-by-step training for teaching."""
